#include "server/arrival_stamper.hpp"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>

#include "model/arrival_edge.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {
constexpr std::int64_t kGatherNs = 500'000;
constexpr int kBatch = 512;
}  // namespace

ArrivalStamper::ArrivalStamper(int max_fd)
    : max_fd_(max_fd),
      slots_(std::make_unique<Slot[]>(static_cast<std::size_t>(max_fd))),
      epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
      stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = stop_fd_;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &ev);
  thread_ = std::thread([this] { run(); });
}

ArrivalStamper::~ArrivalStamper() {
  eventfd_write(stop_fd_, 1);
  thread_.join();
  close(stop_fd_);
  close(epoll_fd_);
}

void ArrivalStamper::watch(int fd) {
  if (fd < 0 || fd >= max_fd_) return;
  slots_[fd].seen_ns.store(0, std::memory_order_relaxed);
  slots_[fd].answered_ns.store(0, std::memory_order_relaxed);
  // Edge-triggered: one wake per arrival of new bytes, none for bytes not yet read.
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLET;
  ev.data.fd = fd;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
}

std::int64_t ArrivalStamper::take(int fd) {
  if (fd < 0 || fd >= max_fd_) return 0;
  const std::int64_t seen = slots_[fd].seen_ns.exchange(0, std::memory_order_relaxed);
  return seen > slots_[fd].answered_ns.load(std::memory_order_relaxed) ? seen : 0;
}

std::int64_t ArrivalStamper::pending_since(int fd) const {
  if (fd < 0 || fd >= max_fd_) return 0;
  const std::int64_t seen = slots_[fd].seen_ns.load(std::memory_order_relaxed);
  return seen > slots_[fd].answered_ns.load(std::memory_order_relaxed) ? seen : 0;
}

void ArrivalStamper::answered(int fd) {
  if (fd < 0 || fd >= max_fd_) return;
  slots_[fd].answered_ns.store(ScenarioClock::steady_ns(), std::memory_order_relaxed);
}

void ArrivalStamper::run() {
  // Where allowed (root, or RLIMIT_RTPRIO), the lowest real-time priority: on a busy machine
  // the thread then runs the moment bytes arrive, not after a time slice of someone else. It
  // sleeps between wakes, so it can never hold a core.
  const sched_param param{1};
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  epoll_event events[kBatch];
  pollfd waiting[kBatch];
  while (true) {
    const int n = epoll_wait(epoll_fd_, events, kBatch, -1);
    // An edge this thread comes to late may be for bytes a loop has read already: only bytes
    // still waiting make an arrival. poll() asks without taking the socket's lock (FIONREAD
    // takes it, and waits for a loop thread that holds it and is not running).
    int m = 0;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.fd == stop_fd_) return;
      waiting[m++] = {events[i].data.fd, POLLIN, 0};
    }
    const std::int64_t polled_from_ns = ScenarioClock::steady_ns();
    poll(waiting, static_cast<nfds_t>(m), 0);
    // Read after poll: bytes it found were in by then, so no stamp is ever early.
    const std::int64_t now_ns = ScenarioClock::steady_ns();
    for (int i = 0; i < m; ++i) {
      if (!(waiting[i].revents & POLLIN)) continue;
      Slot& slot = slots_[waiting[i].fd];
      std::int64_t seen = slot.seen_ns.load(std::memory_order_relaxed);
      if (edge_is_arrival(seen, slot.answered_ns.load(std::memory_order_relaxed), polled_from_ns)) {
        slot.seen_ns.compare_exchange_strong(seen, now_ns, std::memory_order_relaxed);
      }
    }
    // Let arrivals gather for a moment: under load one wake then notes hundreds of them, not
    // one, for an error of at most this pause.
    std::this_thread::sleep_for(std::chrono::nanoseconds(kGatherNs));
  }
}

}  // namespace stampede
