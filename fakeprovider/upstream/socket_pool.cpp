#include "upstream/socket_pool.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "scenario_clock.hpp"
#include "upstream/resend_rule.hpp"

namespace stampede {
namespace {

std::string request_head(const UpstreamExchange& x, const std::string& prefix,
                         const std::string& host) {
  std::string out = x.method + " " + prefix + x.target + " HTTP/1.1\r\nHost: " + host + "\r\n";
  for (const auto& h : x.headers) out += h + "\r\n";
  if (x.body_size) out += "Content-Length: " + std::to_string(*x.body_size) + "\r\n";
  return out + "\r\n";
}

}  // namespace

SocketPool::SocketPool(const UpstreamConfig& config, UpstreamEvents& events)
    : config_(config), events_(events), epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  const UpstreamUrl& url = config_.url;
  std::string host = url.host;
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  host_header_ = url.port == 80 ? url.host : url.host + ":" + std::to_string(url.port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(url.port);
  if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    resolve_error_ = "cannot resolve " + host + ": " + gai_strerror(rc);
    return;
  }
  std::memcpy(&addr_, found->ai_addr, found->ai_addrlen);
  addr_len_ = found->ai_addrlen;
  freeaddrinfo(found);
}

SocketPool::~SocketPool() {
  for (auto& c : conns_) close(c->fd);
  close(epoll_fd_);
}

int SocketPool::timeout_ms() const {
  // Requests wait while the idle connections have yet to be looked at: at once.
  if (!waiting_.empty() && !idle_.empty()) return 0;
  if (next_sweep_ns_ < 0) return -1;
  const std::int64_t left_ns =
      std::max<std::int64_t>(0, next_sweep_ns_ - ScenarioClock::steady_ns());
  return static_cast<int>((left_ns + 999'999) / 1'000'000);
}

void SocketPool::waited(bool ready) {
  // Every connection idle now was idle at the wait: what it heard then is read below, so the
  // ones left may carry requests. An answer that ends below makes its connection wait for the
  // next turn's look: the bytes of an overrun, or a close, can come a moment after it.
  ++turn_;
  if (ready) read_ready();
  const std::int64_t now_ns = ScenarioClock::steady_ns();
  if (next_sweep_ns_ >= 0 && now_ns >= next_sweep_ns_) sweep(now_ns);
  serve_waiting();
  closed_.clear();
}

void SocketPool::read_ready() {
  constexpr int kBatch = 64;
  epoll_event ready[kBatch];
  int n = kBatch;
  // All of it: an idle connection's close left unread would be written a request.
  while (n == kBatch) {
    n = epoll_wait(epoll_fd_, ready, kBatch, 0);
    for (int i = 0; i < n; ++i) take_event(*static_cast<Conn*>(ready[i].data.ptr), ready[i].events);
  }
}

void SocketPool::take_event(Conn& c, std::uint32_t events) {
  if (c.fd < 0) return;  // closed by an earlier event of this batch
  if ((events & EPOLLOUT) && c.connecting) {
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0)
      return fail(c, UpstreamFailure::kRefused, std::string("connect: ") + std::strerror(error));
    c.connecting = false;
  }
  if (events & EPOLLOUT) write_out(c);
  if (c.fd >= 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) read_in(c);
}

void SocketPool::start(UpstreamExchange& x) {
  x.pool = this;
  x.attempt = 1;
  if (!resolve_error_.empty()) {
    x.fail(UpstreamFailure::kRefused, resolve_error_);
    events_.on_end(x);
    return;
  }
  const std::int64_t now_ns = ScenarioClock::steady_ns();
  waiting_.push_back(x, now_ns);
  serve_waiting();
  if (next_sweep_ns_ < 0) next_sweep_ns_ = now_ns + kSweepNs;
}

void SocketPool::serve_waiting() {
  while (!waiting_.empty()) {
    Conn* c = idle_conn();
    // None but those not looked at yet: they are, at the loop's next turn (timeout_ms).
    if (!c && !idle_.empty()) return;
    if (!c && conns_.size() < config_.connections) {
      c = open_conn();
      if (!c) {
        UpstreamExchange& x = *waiting_.pop();
        x.fail(UpstreamFailure::kRefused, std::string("connect: ") + std::strerror(errno));
        events_.on_end(x);
        continue;
      }
    }
    if (!c) return;
    begin(*c, *waiting_.pop());
  }
}

SocketPool::Conn* SocketPool::idle_conn() {
  // The latest to have been looked at: the one least likely to meet the upstream's idle timeout.
  for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
    Conn* c = *it;
    if (c->idle_turn == turn_) continue;
    idle_.erase(std::next(it).base());
    return c;
  }
  return nullptr;
}

SocketPool::Conn* SocketPool::open_conn() {
  const int fd = socket(addr_.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr_), addr_len_) != 0 &&
      errno != EINPROGRESS) {
    const int error = errno;
    close(fd);
    errno = error;
    return nullptr;
  }
  auto conn = std::make_unique<Conn>();
  conn->fd = fd;
  conn->connecting = true;
  epoll_event ev{};
  ev.events = conn->events = EPOLLOUT;
  ev.data.ptr = conn.get();
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  conns_.push_back(std::move(conn));
  return conns_.back().get();
}

void SocketPool::begin(Conn& c, UpstreamExchange& x) {
  c.x = &x;
  x.handle = &c;
  c.parser.reset(x.method == "HEAD", x.max_answer_head, &x.answer_headers);
  c.answered = false;
  c.paused = false;
  c.sent = 0;
  c.out = request_head(x, config_.url.prefix, host_header_);
  c.out.append(x.body);
  x.body_sent = x.body.size();
  c.out_at = 0;
  c.active_ns = ScenarioClock::steady_ns();
  if (!c.connecting) write_out(c);
}

void SocketPool::body_added(UpstreamExchange& x) {
  auto* c = static_cast<Conn*>(x.handle);
  if (!c) return;
  c->out.append(x.body, x.body_sent);
  x.body_sent = x.body.size();
  if (!c->connecting) write_out(*c);
}

void SocketPool::write_out(Conn& c) {
  while (c.out_at < c.out.size()) {
    const ssize_t n = send(c.fd, c.out.data() + c.out_at, c.out.size() - c.out_at, MSG_NOSIGNAL);
    if (n < 0 && errno == EAGAIN) break;
    if (n < 0) return resend_or_fail(c, std::string("send: ") + std::strerror(errno));
    c.out_at += static_cast<std::size_t>(n);
    c.sent += static_cast<std::size_t>(n);
    c.active_ns = ScenarioClock::steady_ns();
  }
  if (c.out_at == c.out.size()) {
    c.out.clear();
    c.out_at = 0;
  }
  watch(c);
}

void SocketPool::read_in(Conn& c) {
  if (c.paused) return;
  const ssize_t n = recv(c.fd, buffer_.data(), buffer_.size(), 0);
  if (n < 0 && errno == EAGAIN) return;
  if (!c.x) return close_conn(c);  // an idle one the upstream closed (or wrote to)
  if (n <= 0) {
    if (c.parser.close() == AnswerParser::State::kComplete) return finish(c);
    return resend_or_fail(
        c, n == 0 ? std::string(c.parser.error()) : std::string("recv: ") + std::strerror(errno));
  }
  c.answered = true;
  c.active_ns = ScenarioClock::steady_ns();
  take_answer(c, std::string_view(buffer_.data(), static_cast<std::size_t>(n)));
}

void SocketPool::take_answer(Conn& c, std::string_view data) {
  UpstreamExchange& x = *c.x;
  const bool had_head = x.head_done;
  const std::size_t before = x.answer_body.size();
  std::size_t used = 0;
  const auto state = c.parser.feed(data.data(), data.size(), &used, &x.answer_body);
  if (state == AnswerParser::State::kError)
    return fail(c, UpstreamFailure::kBroken, std::string(c.parser.error()));
  if (!had_head && c.parser.head_done()) {
    x.status = c.parser.status();
    x.answer_size = c.parser.content_length();
    x.head_done = true;
    events_.on_head(x);
  }
  if (state == AnswerParser::State::kComplete) return finish(c);
  if (x.answer_body.size() > before) events_.on_body(x);
  if (x.answer_pending().size() >= kPauseBytes) {
    c.paused = true;
    watch(c);
  }
}

void SocketPool::answer_taken(UpstreamExchange& x, std::size_t n) {
  const std::size_t pending = x.take(n);
  auto* c = static_cast<Conn*>(x.handle);
  if (!c || !c->paused || pending > kPauseBytes / 2) return;
  c->paused = false;
  watch(*c);  // level-triggered: what waits in the socket is reported at once
}

void SocketPool::finish(Conn& c) {
  UpstreamExchange& x = *c.x;
  c.x = nullptr;
  x.handle = nullptr;
  x.ended = true;
  if (c.parser.reusable() && c.out.empty() && x.body_complete()) {
    c.idle_turn = turn_;
    idle_.push_back(&c);
    watch(c);
  } else {
    close_conn(c);
  }
  events_.on_end(x);
  serve_waiting();
}

void SocketPool::resend_or_fail(Conn& c, const std::string& detail) {
  UpstreamExchange& x = *c.x;
  if (c.answered || !may_resend(x.method, c.sent, x.attempt))
    return fail(c, UpstreamFailure::kBroken, detail);
  ++x.attempt;
  close_conn(c);
  waiting_.push_back(x, ScenarioClock::steady_ns());
  serve_waiting();
}

void SocketPool::fail(Conn& c, UpstreamFailure why, const std::string& detail) {
  UpstreamExchange* x = c.x;
  close_conn(c);
  if (x) {
    x->fail(why, detail);
    events_.on_end(*x);
  }
  serve_waiting();
}

void SocketPool::close_conn(Conn& c) {
  close(c.fd);  // leaves the epoll set with it
  c.fd = -1;
  if (c.x) c.x->handle = nullptr;
  c.x = nullptr;
  std::erase(idle_, &c);
  const auto it =
      std::find_if(conns_.begin(), conns_.end(), [&](const auto& p) { return p.get() == &c; });
  closed_.push_back(std::move(*it));
  conns_.erase(it);
}

void SocketPool::watch(Conn& c) {
  std::uint32_t events = c.paused ? 0u : static_cast<std::uint32_t>(EPOLLIN);
  if (c.connecting || !c.out.empty()) events |= EPOLLOUT;
  if (events == c.events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = &c;
  // Paused, it leaves the set: a hang-up is reported whatever is asked, and would be on every
  // wait until the client catches up.
  const int op = events == 0 ? EPOLL_CTL_DEL : c.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  epoll_ctl(epoll_fd_, op, c.fd, &ev);
  c.events = events;
}

void SocketPool::cancel(UpstreamExchange& x) {
  if (auto* c = static_cast<Conn*>(x.handle)) {
    c->x = nullptr;  // mid-exchange: the connection cannot carry another
    close_conn(*c);
    return serve_waiting();
  }
  waiting_.remove(x);
}

void SocketPool::fail_all(UpstreamFailure why) {
  std::vector<Conn*> busy;
  for (auto& c : conns_) {
    if (c->x) busy.push_back(c.get());
  }
  for (Conn* c : busy) fail(*c, why, "the provider is stopping");
  for (UpstreamExchange* x : waiting_.take_all()) {
    x->fail(why, "the provider is stopping");
    events_.on_end(*x);
  }
}

void SocketPool::sweep(std::int64_t now_ns) {
  std::vector<Conn*> late;
  bool busy = !waiting_.empty();
  for (auto& c : conns_) {
    if (!c->x) continue;
    busy = true;
    // A paused one waits for its client, not for the upstream.
    if (c->paused) c->active_ns = now_ns;
    if (now_ns - c->active_ns > config_.timeout_ns) late.push_back(c.get());
  }
  const std::string silent =
      "silent for " + std::to_string(config_.timeout_ns / 1'000'000'000) + " s";
  for (Conn* c : late) {
    fail(*c, UpstreamFailure::kTimedOut, c->connecting ? "connect: " + silent : silent);
  }
  for (UpstreamExchange* x : waiting_.expire(now_ns, config_.timeout_ns)) {
    x->fail(UpstreamFailure::kPoolBusy, pool_busy_detail(config_));
    events_.on_end(*x);
  }
  next_sweep_ns_ = busy ? now_ns + kSweepNs : -1;
}

}  // namespace stampede
