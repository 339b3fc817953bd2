// The data plane's connections, whichever loop serves them: the loops accept for each other,
// round robin, hold at most max_connections between them, and shed what is past the limit or
// the descriptors. The loops themselves are data_plane_connections.cpp's.
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "duration.hpp"
#include "server/data_plane_internals.hpp"

namespace stampede {

std::int64_t sweep_period_ns(std::int64_t header_timeout_ns) {
  if (header_timeout_ns <= 0) return kNsPerSec;
  return std::clamp<std::int64_t>(header_timeout_ns / 4, 10 * kNsPerMs, kNsPerSec);
}

void DataPlane::accept_connections(Loop& self) {
  // A bounded series, so a flood of connections cannot starve the requests.
  for (int i = 0; i < 64; ++i) {
    Loop::Handed h{};
    h.addr_len = sizeof h.addr;
    h.fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&h.addr), &h.addr_len,
                   SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (h.fd < 0 && (errno == EMFILE || errno == ENFILE)) {
      shed_connection();
      continue;
    }
    if (h.fd < 0) return;  // EAGAIN: another loop took it, or none left
    if (!take_connection_slot()) {
      close(h.fd);
      refusals_.note(ConnectionRefusals::Kind::kAtLimit, ScenarioClock::steady_ns());
      continue;
    }
    if (stamper_) stamper_->watch(h.fd);
    Loop& to = *loops_[next_loop_.fetch_add(1, std::memory_order_relaxed) % loops_.size()];
    if (&to == &self) {
      add_connection(self, h.fd, h.addr);
      continue;
    }
    {
      std::lock_guard lock(to.handed_mu);
      to.handed.push_back(h);
    }
    eventfd_write(to.wake_fd, 1);
  }
}

void DataPlane::add_handed_connections(Loop& loop) {
  std::vector<Loop::Handed> handed;
  {
    std::lock_guard lock(loop.handed_mu);
    handed.swap(loop.handed);
  }
  // On the loop's own thread: its connections and epoll set are touched by no other.
  for (const auto& h : handed) add_connection(loop, h.fd, h.addr);
}

bool DataPlane::take_connection_slot() {
  // Counted across the loops: --max-connections is what the process holds at once, whichever
  // loop a connection lands on.
  if (open_connections_.fetch_add(1, std::memory_order_relaxed) < config_.max_connections) {
    return true;
  }
  open_connections_.fetch_sub(1, std::memory_order_relaxed);
  return false;
}

void DataPlane::shed_connection() {
  // Out of descriptors, the listen socket stays readable and its backlog full: give up the
  // spare descriptor for a moment to take the connection and close it, so the client is told
  // at once and this loop does not spin on the same readable socket.
  {
    std::lock_guard lock(spare_mu_);
    if (spare_fd_ >= 0) close(spare_fd_);
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) close(fd);
    spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  refusals_.note(ConnectionRefusals::Kind::kNoDescriptors, ScenarioClock::steady_ns());
}

void DataPlane::signal_loops(std::atomic<bool> Loop::*flag) {
  for (auto& loop : loops_) {
    ((*loop).*flag).store(true);
    eventfd_write(loop->wake_fd, 1);
  }
}

}  // namespace stampede
