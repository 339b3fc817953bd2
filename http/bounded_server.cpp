#include "bounded_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>

#include "event_stream.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// How often a wait looks whether the server is stopping.
constexpr std::int64_t kSliceNs = 100'000'000;
constexpr int kBacklog = 128;

void ip_and_port(const sockaddr_storage& addr, socklen_t len, std::string& ip, int& port) {
  std::array<char, NI_MAXHOST> host{};
  std::array<char, NI_MAXSERV> serv{};
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host.data(), host.size(),
                  serv.data(), serv.size(), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host.data();
    port = std::atoi(serv.data());
  }
}

// One connection read and written under ConnectionLimits. Every wait is a poll bounded by the
// per-read (or per-write) timeout, by the request's (or answer's) deadline and by the server
// stopping; the socket is only read and written without blocking. Bytes read ahead (a
// pipelined request) stay buffered for the next request, and count against its budget.
class BoundedStream final : public httplib::Stream {
 public:
  BoundedStream(int fd, const ConnectionLimits& limits, std::function<bool()> stopping,
                std::int64_t read_timeout_ns, std::int64_t write_timeout_ns)
      : fd_(fd),
        limits_(limits),
        stopping_(std::move(stopping)),
        read_timeout_ns_(read_timeout_ns),
        write_timeout_ns_(write_timeout_ns) {}

  // Waits up to idle_ns for the next request's first byte (or the peer's close, which the read
  // then finds); false if none came, or the server is stopping.
  bool await_request(std::int64_t idle_ns) {
    return buffered() > 0 || wait_for(POLLIN, ScenarioClock::steady_after(idle_ns));
  }
  // The request's deadline and byte budget start now.
  void begin_request() {
    request_deadline_ns_ = ScenarioClock::steady_after(limits_.request_deadline_ns);
    answer_deadline_ns_ = 0;
    request_bytes_ = 0;
  }
  // A request ran out of time or bytes, or an answer out of time: the connection ends.
  bool cut() const { return cut_; }
  // BoundedServer::stream_answer.
  void stream_answer(int send_buffer_bytes) {
    answer_deadline_ns_ = std::numeric_limits<std::int64_t>::max();
    setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &send_buffer_bytes, sizeof send_buffer_bytes);
  }

  bool is_readable() const override {
    pollfd p{fd_, POLLIN, 0};
    return buffered() > 0 || poll(&p, 1, 0) > 0;
  }
  bool is_writable() const override {
    return wait_for(POLLOUT, ScenarioClock::steady_after(write_timeout_ns_));
  }

  ssize_t read(char* ptr, std::size_t size) override {
    if (request_bytes_ >= limits_.request_max_bytes) return cut_here();
    size = std::min(size, limits_.request_max_bytes - request_bytes_);
    if (buffered() == 0 && !fill()) return eof_ ? 0 : -1;
    const std::size_t n = std::min(size, buffered());
    std::memcpy(ptr, buffer_.data() + begin_, n);
    begin_ += n;
    request_bytes_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    if (answer_deadline_ns_ == 0)
      answer_deadline_ns_ = ScenarioClock::steady_after(limits_.answer_deadline_ns);
    while (true) {
      const ssize_t n = send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) return n;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
      const std::int64_t until =
          std::min(ScenarioClock::steady_after(write_timeout_ns_), answer_deadline_ns_);
      if (!wait_for(POLLOUT, until)) {
        if (ScenarioClock::steady_ns() >= answer_deadline_ns_) cut_ = true;
        return -1;
      }
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      ip_and_port(addr, len, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      ip_and_port(addr, len, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  std::size_t buffered() const { return end_ - begin_; }

  ssize_t cut_here() {
    cut_ = true;
    return -1;
  }

  // Reads what has come in, waiting for it within the read timeout and the request's
  // deadline; false at the end of the stream (eof_), on an error or when out of time (cut_).
  bool fill() {
    begin_ = end_ = 0;
    while (true) {
      const ssize_t n = recv(fd_, buffer_.data(), buffer_.size(), MSG_DONTWAIT);
      if (n > 0) {
        end_ = static_cast<std::size_t>(n);
        return true;
      }
      if (n == 0) {
        eof_ = true;
        return false;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      const std::int64_t until =
          std::min(ScenarioClock::steady_after(read_timeout_ns_), request_deadline_ns_);
      if (!wait_for(POLLIN, until)) {
        if (ScenarioClock::steady_ns() >= request_deadline_ns_) cut_ = true;
        return false;
      }
    }
  }

  // Until the socket is ready for events (or has an error or a hangup, which the next call
  // on it reports), until_ns passes, or the server stops.
  bool wait_for(short events, std::int64_t until_ns) const {
    while (!stopping_()) {
      const std::int64_t left_ns = until_ns - ScenarioClock::steady_ns();
      if (left_ns <= 0) return false;
      const auto wait_ms = static_cast<int>((std::min(left_ns, kSliceNs) + 999'999) / 1'000'000);
      pollfd p{fd_, events, 0};
      const int r = poll(&p, 1, wait_ms);
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return false;
    }
    return false;
  }

  int fd_;
  const ConnectionLimits& limits_;
  std::function<bool()> stopping_;
  std::int64_t read_timeout_ns_;
  std::int64_t write_timeout_ns_;
  std::array<char, 4096> buffer_{};
  std::size_t begin_ = 0, end_ = 0;
  std::int64_t request_deadline_ns_ = 0;
  std::int64_t answer_deadline_ns_ = 0;
  std::size_t request_bytes_ = 0;
  bool cut_ = false;
  bool eof_ = false;
};

// The stream the calling thread is serving a connection through, for stream_answer.
thread_local BoundedStream* t_serving = nullptr;

std::int64_t to_ns(time_t sec, time_t usec) {
  return static_cast<std::int64_t>(sec) * 1'000'000'000 + static_cast<std::int64_t>(usec) * 1'000;
}

}  // namespace

BoundedServer::BoundedServer(const ConnectionLimits& limits) : limits_(limits) {
  new_task_queue = [threads = limits_.threads] { return new httplib::ThreadPool(threads); };
}

BoundedServer::~BoundedServer() {
  stop_serving();
}

bool BoundedServer::serve_in_background() {
  // The server's threads (this one and the pool it starts) take no signal: a process that
  // reads its signals from a signalfd (loadgen's SIGCHLD, SIGINT, SIGTERM) blocks them in its
  // own threads only, and a signal the kernel gave a server thread would be lost, or kill.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  thread_ = std::thread([this] {
    listen_after_bind();
    listen_returned_ = true;
  });
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  while (!is_running() && !listen_returned_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return is_running();
}

void BoundedServer::stop_serving() {
  if (!thread_.joinable()) return;
  stop();
  thread_.join();
}

Parsed<int> BoundedServer::bind(const ListenAddress& address) {
  const auto sock = open_listen_socket(address, kBacklog);
  if (!sock) return Parsed<int>::fail(sock.error());
  // cpp-httplib's accept loop waits in accept(): the listening socket blocks.
  fcntl(sock->fd, F_SETFL, fcntl(sock->fd, F_GETFL) & ~O_NONBLOCK);
  svr_sock_ = sock->fd;
  return Parsed<int>::ok(sock->port);
}

bool BoundedServer::process_and_close_socket(socket_t sock) {
  const int on = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  BoundedStream strm(
      sock, limits_, [this] { return stopping(); }, to_ns(read_timeout_sec_, read_timeout_usec_),
      to_ns(write_timeout_sec_, write_timeout_usec_));
  const std::int64_t idle_ns = to_ns(keep_alive_timeout_sec_, 0);
  t_serving = &strm;
  bool ok = false;
  for (std::size_t left = keep_alive_max_count_; left > 0 && !stopping(); --left) {
    if (!strm.await_request(idle_ns)) break;
    strm.begin_request();
    bool connection_closed = false;
    // Answered whole, whatever Range asks: the stats are made a piece at a time, and each
    // range would make them again from the start.
    ok = process_request(strm, left == 1, connection_closed,
                         [](httplib::Request& req) { req.ranges.clear(); });
    if (!ok || connection_closed || strm.cut()) break;
  }
  t_serving = nullptr;
  shutdown(sock, SHUT_RDWR);
  close(sock);
  return ok;
}

namespace {

// The connection's send buffer capped, and the answer deadline lifted: see answer_event_stream.
void stream_answer(int send_buffer_bytes) {
  if (t_serving) t_serving->stream_answer(send_buffer_bytes);
}

bool write_text(httplib::DataSink& sink, const std::string& text) {
  return sink.write(text.data(), text.size());
}

}  // namespace

void BoundedServer::answer_event_stream(httplib::Response& res, int send_buffer_bytes,
                                        NextEvent next) {
  static const std::string pad = sse_padding(kStreamPadBytes);
  res.set_header("Cache-Control", "no-store");
  auto opened = std::make_shared<bool>(false);
  res.set_chunked_content_provider(
      "text/event-stream",
      [send_buffer_bytes, opened, next = std::move(next)](std::size_t, httplib::DataSink& sink) {
        if (!*opened) {
          *opened = true;
          stream_answer(send_buffer_bytes);
          if (!write_text(sink, sse_retry(kStreamRetryMs))) return false;
        }
        const StreamStep step = next();
        switch (step.kind) {
          case StreamStep::Kind::kEvent:
            return write_text(sink, *step.event) && write_text(sink, pad);
          case StreamStep::Kind::kNothingYet:
            return true;
          case StreamStep::Kind::kEnd:
            break;
        }
        return false;
      });
}

}  // namespace stampede
