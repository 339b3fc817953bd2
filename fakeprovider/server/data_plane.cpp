// The data plane's start and stop: the listen socket, a daemon and a thread per loop, and a
// stop that lets the requests in flight finish. The loops are in data_plane_loops.cpp, a
// request's life in data_plane_requests.cpp, the answers' bytes in answer_writer.cpp.
#include "server/data_plane.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

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
      native() ? run_native(*loops_[i]) : run(*loops_[i]);
    });
  }
  return std::nullopt;
}

std::unique_ptr<DataPlane::Loop> DataPlane::make_loop() {
  // The limit is the process's (open_connections_, counted at accept); each daemon may hold
  // all of it, so none refuses a connection the process has room for.
  const unsigned per_loop = std::max(1u, config_.max_connections);
  auto loop = std::make_unique<Loop>();
  loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (proxying()) loop->upstream = UpstreamPool::make(*config_.upstream, *proxy_events_);
  if (native()) {
    loop->native_epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    return loop->native_epoll_fd >= 0 ? std::move(loop) : nullptr;
  }
  loop->daemon = MHD_start_daemon(
      MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET, 0, nullptr, nullptr,
      &MhdCallbacks::on_request, this, MHD_OPTION_CONNECTION_LIMIT, per_loop,
      MHD_OPTION_CONNECTION_TIMEOUT, config_.idle_timeout_s, MHD_OPTION_NOTIFY_COMPLETED,
      &MhdCallbacks::on_completed, this, MHD_OPTION_NOTIFY_CONNECTION, &MhdCallbacks::on_connection,
      this,
      // Strict parsing: a request line with a NUL in it, or HTTP/1.1 without Host, gets a
      // 400 instead of being read as a shorter request.
      MHD_OPTION_STRICT_FOR_CLIENT, 1,
      // Each connection's memory pool is zeroed between requests: the 32 KiB default made
      // that memset the largest cost of a keep-alive request.
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, config_.memory_per_connection,
      // The target as it came, which the handler is given unescaped: checked (check_head),
      // and what proxy mode forwards.
      MHD_OPTION_URI_LOG_CALLBACK, &MhdCallbacks::on_uri, this, MHD_OPTION_END);
  if (!loop->daemon) return nullptr;
  loop->epoll_fd = MHD_get_daemon_info(loop->daemon, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd;
  return loop;
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
  // libmicrohttpd must not be stopped with a connection suspended: what still waits on the
  // upstream is answered 502 (or its stream cut), and the service times are cut short.
  signal_loops(&Loop::drop_upstream);
  timer_.fire_all();
  while (suspended_.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  poll_until(ScenarioClock::steady_ns() + kNsPerSec);
  signal_loops(&Loop::stop);
  for (auto& loop : loops_) {
    if (loop->thread.joinable()) loop->thread.join();
    if (loop->daemon) MHD_stop_daemon(loop->daemon);
  }
  loops_.clear();
  listen_fd_ = -1;
  if (spare_fd_ >= 0) close(spare_fd_);
  spare_fd_ = -1;
  refusals_.flush(ScenarioClock::steady_ns(), /*at_end=*/true);
}

}  // namespace stampede
