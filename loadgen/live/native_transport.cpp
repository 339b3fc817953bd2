#include "live/native_transport.hpp"

#include <curl/curl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <utility>

#include "generated/version.hpp"
#include "model/versioned_row.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

constexpr std::uint32_t kNoClient = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kReadBytes = 16 * 1024;

// Every connection's events carry this tag: one transport, no shards.
constexpr std::uint32_t kTag = 1;

bool same_name(std::string_view line, std::string_view name) {
  const auto colon = line.find(':');
  if (colon != name.size()) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

bool names(const std::vector<std::string>& lines, std::string_view name) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return same_name(l, name); });
}

// "Name:" with nothing after it: as libcurl reads it, leave that header out.
bool removes_header(std::string_view line) {
  const auto value = line.substr(line.find(':') + 1);
  return value.find_first_not_of(" \t") == std::string_view::npos;
}

std::string host_header(const TargetUrl& url) {
  const bool literal_v6 = url.host.find(':') != std::string::npos;
  std::string host = literal_v6 ? "[" + url.host + "]" : url.host;
  if (url.port != 80) host += ":" + std::to_string(url.port);
  return host;
}

void append_number(std::string& out, long long n) {
  char digits[24];
  const int len = std::snprintf(digits, sizeof digits, "%lld", n);
  out.append(digits, static_cast<std::size_t>(len));
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
  const LiveRequest& r = shared.request;
  const auto& user = shared.fixed_headers;
  // What libcurl sends unless told otherwise, so that both clients send the same request.
  std::string common;
  if (!names(user, "host")) common += "Host: " + host_header(r.url) + "\r\n";
  if (!names(user, "user-agent"))
    common += std::string("User-Agent: stampede-loadgen/") + kVersion + "\r\n";
  if (!names(user, "accept")) common += "Accept: */*\r\n";
  for (const auto& h : user) {
    if (!removes_header(h)) common += h + "\r\n";
  }
  if (r.method != "HEAD" && (!r.body.empty() || r.method == "POST")) {
    body_headers_ = "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
    if (!names(user, "content-type"))
      body_headers_ += "Content-Type: application/x-www-form-urlencoded\r\n";
  }
  prefixes_.reserve(clients.size());
  for (const auto& c : clients) {
    std::string p = common;
    if (!shared.tenant_headers.empty())
      p += shared.tenant_headers[c.id % shared.tenant_headers.size()] + "\r\n";
    if (r.trace_headers) p += "X-Client-Id: " + std::to_string(c.id) + "\r\n";
    prefixes_.push_back(std::move(p));
  }
}

NativeTransport::~NativeTransport() {
  for (auto& conn : connections_) {
    if (conn.fd >= 0) close(conn.fd);
  }
}

void NativeTransport::build_request(const LiveClient& c, std::string& out) const {
  const LiveRequest& r = shared_.request;
  const bool occ_write = c.occ && c.occ->cycle.writing;
  const std::string_view method = c.occ ? (occ_write ? "PUT" : "GET") : std::string_view(r.method);
  out.clear();
  out.append(method).append(" ").append(r.url.target).append(" HTTP/1.1\r\n");
  out.append(prefixes_[index_of(c)]);
  if (r.trace_headers) {
    out.append("X-Attempt: ");
    append_number(out, c.sends);
    out.append("\r\nX-Request-Id: ");
    append_number(out, c.item_id);
    out.append("\r\n");
  }
  if (occ_write) {
    out.append("If-Match: ").append(format_etag(c.occ->cycle.version)).append("\r\n");
    out.append("Content-Length: 0\r\n\r\n");
    return;
  }
  if (c.occ) {
    out.append("\r\n");
    return;
  }
  out.append(body_headers_).append("\r\n");
  if (!body_headers_.empty()) out.append(r.body);
}

void NativeTransport::send(LiveClient& c) {
  const auto i = static_cast<std::uint32_t>(index_of(c));
  Connection& conn = connections_[i];
  build_request(c, conn.request);
  conn.written = 0;
  conn.received = 0;
  conn.answered_wall_ns = 0;
  conn.retried = false;
  conn.parser.reset(!c.occ && shared_.request.method == "HEAD");
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
    finish(i, CURLE_COULDNT_CONNECT, 0);
    return false;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  conn.phase = Phase::kWriting;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address_.storage), address_.length) != 0) {
    if (errno != EINPROGRESS) {
      close(fd);
      finish(i, CURLE_COULDNT_CONNECT, 0);
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
  // The kernel stamps what arrives, so an answer's time is when it reached the client.
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
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
    const ssize_t n = ::send(conn.fd, conn.request.data() + conn.written,
                             conn.request.size() - conn.written, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      conn.written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return watch(i, true);
    if (n < 0 && errno == EINTR) continue;
    if (resend_on_fresh_connection(i)) return;
    close_connection(conn);
    return finish(i, CURLE_SEND_ERROR, 0);
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
      return finish(i, CURLE_COULDNT_CONNECT, 0);
    }
    conn.phase = Phase::kWriting;
  }
  if (conn.phase == Phase::kWriting && (events & EPOLLOUT)) write_request(i);
  // A reset or a close is read as such: the flags of an event may be a closed descriptor's.
  if (conn.fd == fd && (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))) read_answer(i);
}

void NativeTransport::read_answer(std::uint32_t i) {
  Connection& conn = connections_[i];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  while (true) {
    iovec io{buffer_.data(), buffer_.size()};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    const bool stamp = conn.received == 0 && shared_.options.compensate_latency;
    if (stamp) {
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
    }
    const ssize_t n = recvmsg(conn.fd, &msg, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (conn.phase == Phase::kIdle || conn.phase == Phase::kConnecting) {
      // Closed, reset or written to while no request was out: the next attempt reconnects.
      return close_connection(conn);
    }
    if (n <= 0) {
      const bool answered_in_full = n == 0 && conn.received > 0 &&
                                    conn.parser.close() == HttpResponseParser::State::kComplete;
      if (!answered_in_full && conn.received == 0 && resend_on_fresh_connection(i)) return;
      close_connection(conn);
      if (answered_in_full) return finish(i, CURLE_OK, conn.parser.status());
      // Cut off inside an answer is a broken answer; before one began, no answer at all.
      return finish(i, conn.parser.answer_began() ? CURLE_RECV_ERROR : CURLE_GOT_NOTHING, 0);
    }
    if (conn.received == 0) {
      conn.answered_wall_ns = ScenarioClock::steady_ns();
      for (cmsghdr* h = stamp ? CMSG_FIRSTHDR(&msg) : nullptr; h; h = CMSG_NXTHDR(&msg, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_TIMESTAMPNS) continue;
        timespec ts{};
        std::memcpy(&ts, CMSG_DATA(h), sizeof ts);
        conn.answered_wall_ns =
            std::min(conn.answered_wall_ns,
                     ScenarioClock::steady_at_unix(ts.tv_sec * 1'000'000'000LL + ts.tv_nsec));
      }
    }
    conn.received += static_cast<std::size_t>(n);
    std::size_t used = 0;
    const auto state = conn.parser.feed(buffer_.data(), static_cast<std::size_t>(n), &used);
    if (state == HttpResponseParser::State::kIncomplete) {
      if (static_cast<std::size_t>(n) < buffer_.size()) return;
      continue;
    }
    const bool ok = state == HttpResponseParser::State::kComplete;
    // Bytes after the answer were never asked for, and an answer that came before the whole
    // request was written leaves the rest unsent: either way the connection is spent.
    if (!ok || !conn.parser.keep_alive() || used < static_cast<std::size_t>(n) ||
        conn.written < conn.request.size()) {
      close_connection(conn);
    } else {
      conn.reused = true;
    }
    return finish(i, ok ? CURLE_OK : CURLE_WEIRD_SERVER_REPLY, ok ? conn.parser.status() : 0);
  }
}

bool NativeTransport::resend_on_fresh_connection(std::uint32_t i) {
  Connection& conn = connections_[i];
  if (!conn.reused || conn.retried) return false;
  close_connection(conn);
  conn.retried = true;
  conn.written = 0;
  conn.received = 0;
  conn.parser.reset(!clients_[i].occ && shared_.request.method == "HEAD");
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

void NativeTransport::finish(std::uint32_t i, int transport_error, int status) {
  Connection& conn = connections_[i];
  LiveClient& c = clients_[i];
  conn.phase = Phase::kIdle;
  AttemptAnswer a;
  a.transport_error = transport_error;
  a.status = status;
  a.answer_began = conn.parser.answer_began();
  const std::int64_t now = ScenarioClock::steady_ns();
  a.answered_wall_ns =
      transport_error == CURLE_OK && conn.answered_wall_ns > 0 && shared_.options.compensate_latency
          ? conn.answered_wall_ns
          : now;
  const bool answered = transport_error == CURLE_OK;
  c.retry_after.assign(answered ? conn.parser.retry_after() : std::string_view());
  c.should_retry = answered ? conn.parser.should_retry() : std::nullopt;
  if (c.occ) c.occ->etag.assign(answered ? conn.parser.etag() : std::string_view());
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
    finish(i, CURLE_OPERATION_TIMEDOUT, 0);
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
