// The data plane's event loops: one libmicrohttpd daemon per thread, driven by a loop of ours;
// the loops accept for each other, round robin, hold at most max_connections between them,
// shed what is past the limit or the descriptors, and cut requests that come in too slowly.
#include <fcntl.h>
#include <poll.h>
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

void DataPlane::run(Loop& loop) {
  const std::int64_t sweep_ns = sweep_period_ns(config_.header_timeout_ns);
  while (!loop.stop.load()) {
    const int wait_ms = poll_wait_ms(loop);
    const bool accepting = !loop.quiesce.load();
    if (!accepting) loop.quiesced.store(true);
    const UpstreamPool* upstream = loop.upstream.get();
    // The line only while a question is in flight on it: an owner gone reads as ever readable.
    const bool asking = !loop.asked.empty();
    pollfd fds[5] = {{loop.epoll_fd, POLLIN, 0},
                     {loop.wake_fd, POLLIN, 0},
                     {upstream ? upstream->fd() : -1, POLLIN, 0},
                     {asking ? loop.line->fd() : -1, POLLIN, 0},
                     {listen_fd_, POLLIN, 0}};
    poll(fds, accepting ? 5 : 4, wait_ms);
    if (fds[1].revents & POLLIN) {
      eventfd_t ignored;
      eventfd_read(loop.wake_fd, &ignored);
      add_handed_connections(loop);
    }
    if (fds[3].revents) take_line_answer(loop);
    if (accepting && (fds[4].revents & POLLIN)) accept_connections(loop);
    // Before the daemon runs: the connections the upstream's news resumes are served at once,
    // and what the idle upstream connections heard is read before a request is put on one.
    run_upstream(loop, fds[2].revents != 0);
    MHD_run(loop.daemon);
    ask_line(loop);  // what arrived while it ran
    // After serving: headers that came in are read before any connection is judged slow.
    const std::int64_t now_ns = ScenarioClock::steady_ns();
    if (now_ns >= loop.next_sweep_ns) {
      cut_slow_requests(loop, now_ns);
      refusals_.flush(now_ns);
      loop.next_sweep_ns = now_ns + sweep_ns;
    }
  }
}

int DataPlane::poll_wait_ms(const Loop& loop) const {
  // Zero when libmicrohttpd holds connections it has yet to serve.
  MHD_UNSIGNED_LONG_LONG timeout_ms = 0;
  const auto until_sweep_ms = static_cast<MHD_UNSIGNED_LONG_LONG>(
      std::max<std::int64_t>(0, loop.next_sweep_ns - ScenarioClock::steady_ns()) / kNsPerMs + 1);
  auto wait_ms = static_cast<int>(
      std::min(MHD_get_timeout(loop.daemon, &timeout_ms) == MHD_YES ? timeout_ms : until_sweep_ms,
               until_sweep_ms));
  if (loop.upstream) {
    if (const int upstream_ms = loop.upstream->timeout_ms(); upstream_ms >= 0)
      wait_ms = std::min(wait_ms, upstream_ms);
  }
  return wait_ms;
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
      add_connection(self, h.fd, h.addr, h.addr_len);
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
  // On the daemon's own thread: a daemon driven from outside is not safe to add to from another.
  for (const auto& h : handed) add_connection(loop, h.fd, h.addr, h.addr_len);
}

void DataPlane::add_connection(Loop& loop, int fd, const sockaddr_storage& addr,
                               socklen_t addr_len) {
  if (native()) {
    add_native(loop, fd, addr);
    return;
  }
  // libmicrohttpd closes the socket itself when it cannot take it.
  if (MHD_add_connection(loop.daemon, fd, reinterpret_cast<const sockaddr*>(&addr), addr_len) !=
      MHD_YES) {
    open_connections_.fetch_sub(1, std::memory_order_relaxed);
    refusals_.note(ConnectionRefusals::Kind::kAtLimit, ScenarioClock::steady_ns());
  }
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

void DataPlane::cut_slow_requests(Loop& loop, std::int64_t now_ns) {
  if (config_.header_timeout_ns <= 0) return;
  for (Loop::Conn* conn : loop.conns) {
    if (conn->cut) continue;
    // The headers count from the first byte the stamper saw; a body from its request's first
    // byte until the handler has all of it (a service time or a hop after that is ours).
    const std::int64_t since = conn->in_request ? conn->body_since_ns
                               : stamper_       ? stamper_->pending_since(conn->fd)
                                                : 0;
    if (since == 0 || now_ns - since <= config_.header_timeout_ns) continue;
    // libmicrohttpd reads the end of the stream and closes the connection itself; the
    // descriptor stays its own until then, so no other connection can get its number.
    shutdown(conn->fd, SHUT_RDWR);
    conn->cut = true;
    refusals_.note(conn->in_request ? ConnectionRefusals::Kind::kSlowBody
                                    : ConnectionRefusals::Kind::kSlowHeaders,
                   now_ns);
  }
}

DataPlane::Loop* DataPlane::loop_of(MHD_Connection* c) const {
  const MHD_Daemon* daemon = MHD_get_connection_info(c, MHD_CONNECTION_INFO_DAEMON)->daemon;
  for (const auto& loop : loops_) {
    if (loop->daemon == daemon) return loop.get();
  }
  return loops_.front().get();
}

void DataPlane::signal_loops(std::atomic<bool> Loop::*flag) {
  for (auto& loop : loops_) {
    ((*loop).*flag).store(true);
    eventfd_write(loop->wake_fd, 1);
  }
}

void MhdCallbacks::on_connection(void* cls, MHD_Connection* c, void** socket_context,
                                 MHD_ConnectionNotificationCode code) {
  DataPlane::Loop& loop = *static_cast<DataPlane*>(cls)->loop_of(c);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    auto* conn = new DataPlane::Loop::Conn;
    conn->fd = connection_fd(c);
    loop.conns.insert(conn);
    *socket_context = conn;
    return;
  }
  auto* conn = static_cast<DataPlane::Loop::Conn*>(*socket_context);
  loop.conns.erase(conn);
  delete conn;
  *socket_context = nullptr;
  static_cast<DataPlane*>(cls)->open_connections_.fetch_sub(1, std::memory_order_relaxed);
}

DataPlane::Loop::Conn* MhdCallbacks::conn_of(MHD_Connection* c) {
  const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info ? static_cast<DataPlane::Loop::Conn*>(info->socket_context) : nullptr;
}

}  // namespace stampede
