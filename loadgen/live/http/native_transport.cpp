#include "live/http/native_transport.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <utility>

#include "direct_socket_calls.hpp"
#include "live/http/answer_headers.hpp"
#include "receive_stamp.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

constexpr std::uint32_t kNoClient = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kReadBytes = 16 * 1024;
// A request's bytes beyond its client's prefix: the request line, the attempt's own lines and
// a small body (a larger one grows the buffer once).
constexpr std::size_t kRequestRoom = 512;

// Every connection's events carry this tag: one transport, no shards.
constexpr std::uint32_t kTag = 1;

bool names(const RequestPlan& plan, std::string_view lower_name) {
  return std::any_of(plan.lines().begin(), plan.lines().end(),
                     [&](const char* l) { return line_names(l, lower_name); });
}

// The plan's lines [first, last), as sent: one not to send is left out.
void append_lines(std::string& out, const RequestPlan& plan, std::size_t first, std::size_t last) {
  for (std::size_t i = first; i < last; ++i) {
    const std::string_view line = plan.lines()[i];
    if (!removes_header(line)) out.append(line).append("\r\n");
  }
}

std::string host_header(const TargetUrl& url) {
  const bool literal_v6 = url.host.find(':') != std::string::npos;
  std::string host = literal_v6 ? "[" + url.host + "]" : url.host;
  if (url.port != 80) host += ":" + std::to_string(url.port);
  return host;
}

void append_number(std::string& out, long long n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out.append(digits, end);
}

}  // namespace

bool NativeTransport::can_carry(const LiveRequest& request, const LiveOptions& options) {
  return request.url.scheme == "http" && !options.connect_address.empty();
}

NativeTransport::NativeTransport(LiveShared& shared, std::vector<LiveClient>& clients, int epoll_fd,
                                 AttemptSink& sink)
    : LiveTransport(shared, clients, epoll_fd, sink),
      connections_(clients.size()),
      buffer_(kReadBytes) {
  const auto address = numeric_address(shared.options.connect_address, shared.options.connect_port);
  if (!address) throw std::runtime_error(address.error());
  address_ = *address;
  const RequestPlan* plan = clients.empty() ? nullptr : &plan_of(clients.front());
  // What libcurl sends unless told otherwise, so that both clients send the same request; the
  // lines that name these are the same for every client.
  std::string common;
  if (plan && !names(*plan, "host")) common += "Host: " + host_header(shared.request.url) + "\r\n";
  if (plan && !names(*plan, "user-agent"))
    common += std::string("User-Agent: ") + user_agent() + "\r\n";
  if (plan && !names(*plan, "accept")) common += "Accept: */*\r\n";
  default_content_type_ = plan && !names(*plan, "content-type");
  prefixes_.reserve(clients.size());
  for (const auto& c : clients) {
    std::string p = common;
    append_lines(p, plan_of(c), 0, plan_of(c).client_line_count());
    prefixes_.push_back(std::move(p));
  }
  // Every buffer an attempt writes into is taken now, before t=0, on this thread: taken by the
  // loop in the storm's first wave, their pages were first touched then, about 800 page faults
  // a loop of 5,000 clients in its first 100 ms.
  for (std::size_t i = 0; i < connections_.size(); ++i)
    connections_[i].request.reserve(prefixes_[i].size() + kRequestRoom);
  done_.reserve(clients.size());  // one answer a client at most
}

NativeTransport::~NativeTransport() {
  for (auto& conn : connections_) {
    if (conn.fd >= 0) close(conn.fd);
  }
}

void NativeTransport::build_request(const LiveClient& c, std::string& out) {
  const RequestPlan& plan = plan_attempt(c);
  out.clear();
  out.append(plan.method()).append(" ").append(plan.target()).append(" HTTP/1.1\r\n");
  out.append(prefixes_[index_of(c)]);
  append_lines(out, plan, plan.client_line_count(), plan.lines().size());
  if (plan.has_body()) {
    out.append("Content-Length: ");
    append_number(out, static_cast<long long>(plan.body().size()));
    out.append("\r\n");
    if (plan.form_body() && default_content_type_)
      out.append("Content-Type: application/x-www-form-urlencoded\r\n");
  }
  out.append("\r\n").append(plan.body());
}

void NativeTransport::send(LiveClient& c) {
  const auto i = static_cast<std::uint32_t>(index_of(c));
  Connection& conn = connections_[i];
  build_request(c, conn.request);
  conn.written = 0;
  conn.received = 0;
  conn.answered_wall_ns = 0;
  conn.retried = false;
  ready_for_answer(conn, c);
  conn.deadline_ns = ScenarioClock::steady_after(saturating_mul(shared_.timeout_ms, 1'000'000));
  deadlines_.emplace_back(conn.deadline_ns, i);
  if (conn.fd >= 0) {
    conn.phase = Phase::kWriting;
    return write_request(i);
  }
  if (connect_client(i) && conn.phase == Phase::kWriting) write_request(i);
}

void NativeTransport::adopt_connections() {
  for (std::uint32_t i = 0; i < clients_.size(); ++i) {
    const int fd = std::exchange(clients_[i].own_fd, -1);
    if (fd < 0) continue;
    connections_[i].phase = Phase::kIdle;
    attach(i, fd);
    connections_[i].reused = true;  // idle since it was opened: the server may close it
  }
}

bool NativeTransport::connect_client(std::uint32_t i) {
  Connection& conn = connections_[i];
  const int fd = socket(address_.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    finish(i, TransportError::kRefused, 0);
    return false;
  }
  // A reconnect binds as the first connection did, or the fleet would run out of ports.
  if (bind_source(fd, source_of(shared_.options.sources, clients_[i].id))) {
    close(fd);
    finish(i, TransportError::kRefused, 0);
    return false;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  conn.phase = Phase::kWriting;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address_.storage), address_.length) != 0) {
    if (errno != EINPROGRESS) {
      close(fd);
      finish(i, TransportError::kRefused, 0);
      return false;
    }
    conn.phase = Phase::kConnecting;
  }
  attach(i, fd);
  return true;
}

void NativeTransport::attach(std::uint32_t i, int fd) {
  Connection& conn = connections_[i];
  conn.reused = false;
  enable_receive_stamps(fd);
  conn.fd = fd;
  if (static_cast<std::size_t>(fd) >= client_by_fd_.size()) client_by_fd_.resize(fd + 1, kNoClient);
  client_by_fd_[fd] = i;
  // A connection the server closes while it is idle shows as readable: it is let go then.
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (conn.phase == Phase::kConnecting ? EPOLLOUT : 0u);
  ev.data.u64 = event_data(kTag, fd);
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  conn.wants_write = conn.phase == Phase::kConnecting;
}

void NativeTransport::watch(std::uint32_t i, bool write) {
  Connection& conn = connections_[i];
  if (conn.wants_write == write) return;
  conn.wants_write = write;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (write ? EPOLLOUT : 0u);
  ev.data.u64 = event_data(kTag, conn.fd);
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, conn.fd, &ev);
}

void NativeTransport::write_request(std::uint32_t i) {
  Connection& conn = connections_[i];
  if (conn.written == 0) clients_[i].sent_wall_ns = ScenarioClock::steady_ns();
  while (conn.written < conn.request.size()) {
    const ssize_t n = direct_send(conn.fd, conn.request.data() + conn.written,
                                  conn.request.size() - conn.written, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      conn.written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return watch(i, true);
    if (n < 0 && errno == EINTR) continue;
    if (resend_on_fresh_connection(i)) return;
    close_connection(conn);
    return finish(i, TransportError::kSendFailed, 0);
  }
  conn.phase = Phase::kReading;
  watch(i, false);
}

void NativeTransport::on_event(std::uint32_t, int fd, std::uint32_t events) {
  if (static_cast<std::size_t>(fd) >= client_by_fd_.size()) return;
  const std::uint32_t i = client_by_fd_[fd];
  if (i == kNoClient) return;
  Connection& conn = connections_[i];
  if (conn.phase == Phase::kConnecting && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) {
      close_connection(conn);
      return finish(i, TransportError::kRefused, 0);
    }
    conn.phase = Phase::kWriting;
  }
  if (conn.phase == Phase::kWriting && (events & EPOLLOUT)) write_request(i);
  // A reset or a close is read as such: the flags of an event may be a closed descriptor's.
  if (conn.fd == fd && (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))) read_answer(i);
}

void NativeTransport::read_answer(std::uint32_t i) {
  Connection& conn = connections_[i];
  StampControl control;
  while (true) {
    iovec io{buffer_.data(), buffer_.size()};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    const bool stamp = conn.received == 0 && shared_.options.compensate_latency;
    if (stamp) control.attach(msg);
    const ssize_t n = direct_recvmsg(conn.fd, msg, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (conn.phase == Phase::kIdle || conn.phase == Phase::kConnecting) {
      // Closed, reset or written to while no request was out: the next attempt reconnects.
      return close_connection(conn);
    }
    if (n <= 0) {
      const bool answered_in_full =
          n == 0 && conn.received > 0 && conn.parser.close() == AnswerParser::State::kComplete;
      if (!answered_in_full && conn.received == 0 && resend_on_fresh_connection(i)) return;
      close_connection(conn);
      if (answered_in_full) return finish(i, TransportError::kNone, conn.parser.status());
      // Cut off inside an answer is a broken answer; before one began, no answer at all.
      return finish(
          i, conn.parser.answer_began() ? TransportError::kReset : TransportError::kNoAnswer, 0);
    }
    if (conn.received == 0) {
      conn.answered_wall_ns = ScenarioClock::steady_ns();
      if (const auto at = stamp ? receive_stamp_ns(msg) : std::nullopt)
        conn.answered_wall_ns = std::min(conn.answered_wall_ns, *at);
    }
    conn.received += static_cast<std::size_t>(n);
    std::size_t used = 0;
    const bool streaming = shared_.request.stream.has_value();
    const bool keeps = streaming || shared_.request.records_tokens;
    const auto state = conn.parser.feed(buffer_.data(), static_cast<std::size_t>(n), &used,
                                        keeps ? &conn.body : nullptr);
    if (streaming) read_stream(conn);
    if (conn.body.size() > kMaxKeptBody) conn.body.resize(kMaxKeptBody);
    if (state == AnswerParser::State::kIncomplete) {
      if (static_cast<std::size_t>(n) < buffer_.size()) return;
      continue;
    }
    const bool ok = state == AnswerParser::State::kComplete;
    // Bytes after the answer were never asked for, and an answer that came before the whole
    // request was written leaves the rest unsent: either way the connection is spent.
    if (!ok || !conn.parser.reusable() || conn.written < conn.request.size()) {
      close_connection(conn);
    } else {
      conn.reused = true;
    }
    return finish(i, ok ? TransportError::kNone : TransportError::kBadResponse,
                  ok ? conn.parser.status() : 0);
  }
}

void NativeTransport::ready_for_answer(Connection& conn, const LiveClient& c) {
  conn.parser.reset(plan_of(c).head());
  conn.stream = {};
  conn.body.clear();
  if (shared_.request.stream) conn.stream_reader.reset(*shared_.request.stream);
}

void NativeTransport::read_stream(Connection& conn) {
  if (conn.body.empty()) return;
  const int status = conn.parser.status();
  if (status < 200 || status > 299) return;  // kept whole, for read_kept_body
  conn.stream.streamed = true;
  const std::int64_t now = ScenarioClock::steady_ns();
  if (conn.stream_reader.feed(conn.body) > 0 && conn.stream.first_token_wall_ns == 0)
    conn.stream.first_token_wall_ns = now;
  conn.stream.tokens = conn.stream_reader.tokens();
  conn.stream.end = conn.stream_reader.end();
  conn.stream.end_wall_ns = now;
  conn.body.clear();
}

bool NativeTransport::resend_on_fresh_connection(std::uint32_t i) {
  Connection& conn = connections_[i];
  if (!conn.reused || conn.retried) return false;
  close_connection(conn);
  conn.retried = true;
  conn.written = 0;
  conn.received = 0;
  ready_for_answer(conn, clients_[i]);
  if (connect_client(i) && conn.phase == Phase::kWriting) write_request(i);
  return true;
}

void NativeTransport::close_connection(Connection& conn) {
  if (conn.fd < 0) return;
  client_by_fd_[conn.fd] = kNoClient;
  close(conn.fd);  // which also takes it out of the epoll set
  conn.fd = -1;
  conn.reused = false;
  conn.wants_write = false;
}

void NativeTransport::finish(std::uint32_t i, TransportError transport_error, int status) {
  Connection& conn = connections_[i];
  LiveClient& c = clients_[i];
  conn.phase = Phase::kIdle;
  AttemptAnswer a;
  a.transport_error = transport_error;
  a.status = status;
  a.answer_began = conn.parser.answer_began();
  a.stream = conn.stream;
  if (a.stream.streamed) a.stream.head_wall_ns = conn.answered_wall_ns;
  // The clock only when the answer's own arrival is not what counts. A stream is answered
  // when its last bytes came: its item is delivered, or its retry waits, from its end.
  const std::int64_t arrived =
      conn.stream.streamed ? conn.stream.end_wall_ns : conn.answered_wall_ns;
  a.answered_wall_ns =
      transport_error == TransportError::kNone && arrived > 0 && shared_.options.compensate_latency
          ? arrived
          : ScenarioClock::steady_ns();
  clear_answer_headers(c);
  if (transport_error == TransportError::kNone) {
    for (const auto& h : conn.parser.answer_headers()) read_answer_header(c, h.name, h.value);
    if (shared_.request.records_tokens)
      read_kept_body(a, conn.body, shared_.request.tokens_asked.has_value());
  }
  conn.body.clear();
  done_.push_back({i, a});
}

void NativeTransport::abort(LiveClient& c) {
  Connection& conn = connections_[index_of(c)];
  close_connection(conn);
  conn.phase = Phase::kIdle;
}

std::int64_t NativeTransport::run_timers() {
  const std::int64_t now = ScenarioClock::steady_ns();
  while (!deadlines_.empty()) {
    const auto [due, i] = deadlines_.front();
    Connection& conn = connections_[i];
    const bool pending = conn.phase != Phase::kIdle && conn.deadline_ns == due;
    if (pending && due > now) return due;
    deadlines_.pop_front();
    if (!pending) continue;
    close_connection(conn);
    finish(i, TransportError::kTimeout, 0);
  }
  return -1;
}

void NativeTransport::deliver_answers() {
  if (done_.empty()) return;
  std::vector<Done> done;
  done.swap(done_);
  for (const Done& d : done) sink_.answered(clients_[d.client], d.answer);
  // Keep the capacity: the next wave's answers need as much.
  done.clear();
  if (done_.empty()) done_.swap(done);
}

}  // namespace stampede
