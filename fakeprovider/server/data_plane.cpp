// The data plane's start and stop: the listen socket, an epoll set and a thread per loop, and
// a stop that lets the requests in flight finish. The loops are in data_plane_connections.cpp, a
// request's life in data_plane_requests.cpp, the answers' bytes in answer_writer.cpp.
#include "server/data_plane.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include "duration.hpp"
#include "server/arrival_stamper.hpp"
#include "server/data_plane_internals.hpp"
#include "server/receive_stamps.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kRefusalLogPeriodNs = 10 * kNsPerSec;

}  // namespace

DataPlane::DataPlane(const DataPlaneConfig& config, Admitter& provider)
    : config_(config),
      provider_(provider),
      answers_(make_answer_format(provider.config()), provider.clock()),
      refusals_(std::cerr, kRefusalLogPeriodNs, config.turned_away) {
  if (config_.upstream) proxy_events_ = std::make_unique<ProxyEvents>(*this);
}

DataPlane::~DataPlane() {
  stop(0);
}

std::optional<std::string> DataPlane::start() {
  const auto sock = config_.listen_socket ? Parsed<ListenSocket>::ok(*config_.listen_socket)
                                          : open_listen_socket(config_.listen, config_.backlog);
  if (!sock) return "--listen: " + sock.error();
  listen_fd_ = sock->fd;
  port_ = sock->port;
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (config_.stamping == ArrivalStamping::kKernel) stamper_ = std::make_unique<ReceiveStamps>();
  if (config_.stamping == ArrivalStamping::kWatch) {
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    stamper_ = std::make_unique<ArrivalStamper>(static_cast<int>(files.rlim_cur));
  }
  for (unsigned i = 0; i < config_.threads; ++i) {
    auto loop = make_loop();
    if (!loop) {
      stop(0);
      return "--listen: the data plane could not start on " + config_.listen.url(port_);
    }
    loop->line = provider_.line(i);
    loops_.push_back(std::move(loop));
  }
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    loops_[i]->thread = std::thread([this, i] {
      loop_index = i;
      run_loop(*loops_[i]);
    });
  }
  return std::nullopt;
}

std::unique_ptr<DataPlane::Loop> DataPlane::make_loop() {
  auto loop = std::make_unique<Loop>();
  loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  loop->due_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (proxying()) loop->upstream = UpstreamPool::make(*config_.upstream, *proxy_events_);
  loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  return loop->epoll_fd >= 0 && loop->due_fd >= 0 ? std::move(loop) : nullptr;
}

void DataPlane::stop(std::int64_t max_wait_ns) {
  if (listen_fd_ < 0) return;
  signal_loops(&Loop::quiesce);
  // Once no loop can touch it, close the listen socket: new connections are refused now, not
  // left waiting in its backlog.
  for (auto& loop : loops_) {
    while (loop->thread.joinable() && !loop->quiesced.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  close(listen_fd_);
  const auto poll_until = [this](std::int64_t until_ns) {
    while (in_flight_.load() > 0 && ScenarioClock::steady_ns() < until_ns) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  poll_until(ScenarioClock::steady_ns() + max_wait_ns);
  // What still waits on the upstream is answered 502 (or its stream cut), and the service
  // times are cut short, so no connection is left waiting on the timer.
  signal_loops(&Loop::drop_upstream);
  timer_.fire_all();
  while (waiting_.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  poll_until(ScenarioClock::steady_ns() + kNsPerSec);
  signal_loops(&Loop::stop);
  for (auto& loop : loops_) {
    if (loop->thread.joinable()) loop->thread.join();
    token_lateness_.merge(loop->token_lateness);
  }
  loops_.clear();
  listen_fd_ = -1;
  if (spare_fd_ >= 0) close(spare_fd_);
  spare_fd_ = -1;
  refusals_.flush(ScenarioClock::steady_ns(), /*at_end=*/true);
}

}  // namespace stampede
