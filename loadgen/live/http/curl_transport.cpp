#include "live/http/curl_transport.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <stdexcept>
#include <utility>

#include "answer_parser.hpp"
#include "live/http/answer_headers.hpp"
#include "live/http/connections.hpp"
#include "live/http/tls_settings.hpp"
#include "receive_stamp.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// Answers are small; a small receive buffer keeps ten thousand handles light.
constexpr long kReceiveBufferBytes = 4096;

// The kernel's timer tick (1/HZ: 4 ms at HZ=250), which the coarse clocks advance by.
std::int64_t kernel_tick_ns() {
  static const std::int64_t tick = [] {
    timespec res{};
    clock_getres(CLOCK_MONOTONIC_COARSE, &res);
    return std::max<std::int64_t>(res.tv_sec * 1'000'000'000LL + res.tv_nsec, 1'000'000);
  }();
  return tick;
}

std::size_t discard_body(char*, std::size_t size, std::size_t n, void*) {
  return size * n;
}

// The token_limits section's: the body kept whole, up to kMaxKeptBody, for read_kept_body.
std::size_t keep_body(char* data, std::size_t size, std::size_t n, void* body) {
  auto& kept = *static_cast<std::string*>(body);
  kept.append(data, std::min(size * n, kMaxKeptBody - std::min(kMaxKeptBody, kept.size())));
  return size * n;
}

bool starts_with_nocase(const char* text, std::size_t len, std::string_view prefix) {
  if (len < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// A new head: "HTTP/1.1 100 Continue" or the final one. Whether it is an interim one.
bool interim_status(std::string_view line) {
  const auto space = line.find(' ');
  return space != std::string_view::npos && space + 1 < line.size() && line[space + 1] == '1';
}

// Tracks the head as the native parser bounds it; false: past a bound, stop reading.
bool track_head(CurlClient& cc, std::string_view line) {
  const bool status_line = starts_with_nocase(line.data(), line.size(), "http/");
  if (cc.final_head && cc.head_ended && !status_line) return true;  // a trailer
  cc.head_bytes += line.size();
  if (status_line) {
    cc.began = true;
    cc.head_ended = false;
    cc.final_head = !interim_status(line);
    if (!cc.final_head) ++cc.interims;
  } else if (line == "\r\n" || line == "\n") {
    cc.head_ended = true;
  }
  cc.malformed = cc.head_bytes > AnswerParser::kMaxHead || cc.interims > AnswerParser::kMaxInterim;
  return !cc.malformed;
}

std::size_t on_header(char* text, std::size_t size, std::size_t n, void* data) {
  auto& cc = *static_cast<CurlClient*>(data);
  auto& c = *cc.client;
  const std::size_t len = size * n;
  const std::string_view line(text, len);
  if (!track_head(cc, line)) return 0;  // libcurl ends the transfer: a write error
  if (starts_with_nocase(text, len, "http/")) {
    clear_answer_headers(c);  // a new response (after a 100 Continue) starts over
  } else if (const auto field = split_header_line(line)) {
    read_answer_header(c, field->name, field->value);
  }
  return len;
}

// Sets the method and body the plan asks; a GET resets what an occ write set.
void apply_method(CURL* e, const RequestPlan& plan) {
  const std::string_view method = plan.method();
  if (method == "HEAD") {
    curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    return;
  }
  if (method == "GET" && !plan.has_body()) {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, nullptr);
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    return;
  }
  curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method == "POST" ? nullptr : plan.method());
  if (!plan.has_body()) return;
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(plan.body().size()));
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, plan.body().data());
}

}  // namespace

TransportError transport_error_of(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return TransportError::kNone;
    case CURLE_COULDNT_CONNECT:
      return TransportError::kRefused;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportError::kResolve;
    case CURLE_SEND_ERROR:
      return TransportError::kSendFailed;
    case CURLE_RECV_ERROR:
      return TransportError::kReset;
    case CURLE_GOT_NOTHING:
      return TransportError::kNoAnswer;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::kTimeout;
    case CURLE_WEIRD_SERVER_REPLY:    // some malformed answers (judge_answer names the rest)
    case CURLE_UNSUPPORTED_PROTOCOL:  // no status line (HTTP/0.9), a status not NNN
    case CURLE_PARTIAL_FILE:          // closed inside a body of known length
    case CURLE_BAD_CONTENT_ENCODING:
      return TransportError::kBadResponse;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
      return TransportError::kTls;
    case CURLE_ABORTED_BY_CALLBACK:
      return TransportError::kAborted;
    default:
      return TransportError::kOther;
  }
}

CurlTransport::CurlTransport(LiveShared& shared, std::vector<LiveClient>& clients, int epoll_fd,
                             AttemptSink& sink)
    : LiveTransport(shared, clients, epoll_fd, sink) {
  if (!shared.options.resolve_entry.empty())
    resolve_ = curl_slist_append(nullptr, shared.options.resolve_entry.c_str());
  shards_.resize((clients.size() + kClientsPerShard - 1) / kClientsPerShard);
  for (std::uint32_t i = 0; i < shards_.size(); ++i) {
    auto& shard = shards_[i];
    shard.transport = this;
    shard.index = i;
    shard.multi = curl_multi_init();
    if (!shard.multi) throw std::runtime_error("curl_multi_init failed");
    curl_multi_setopt(shard.multi, CURLMOPT_SOCKETFUNCTION, &CurlTransport::on_socket);
    curl_multi_setopt(shard.multi, CURLMOPT_SOCKETDATA, &shard);
    curl_multi_setopt(shard.multi, CURLMOPT_TIMERFUNCTION, &CurlTransport::on_timer);
    curl_multi_setopt(shard.multi, CURLMOPT_TIMERDATA, &shard);
    // Keep every connection the shard's clients opened: none is closed for want of room.
    curl_multi_setopt(shard.multi, CURLMOPT_MAXCONNECTS, static_cast<long>(kClientsPerShard + 4));
    curl_multi_setopt(shard.multi, CURLMOPT_PIPELINING, CURLPIPE_NOTHING);
  }
  // Sized once: libcurl and the header lists hold pointers into it.
  curl_clients_.resize(clients.size());
  for (std::size_t i = 0; i < clients.size(); ++i) setup_client(curl_clients_[i], clients[i]);
}

CurlTransport::~CurlTransport() {
  for (auto& cc : curl_clients_) {
    if (!cc.easy) continue;
    if (cc.client->state == LiveClient::State::kInFlight)
      curl_multi_remove_handle(shard_of(*cc.client).multi, cc.easy);
    curl_easy_cleanup(cc.easy);
  }
  for (auto& shard : shards_) {
    if (shard.multi) curl_multi_cleanup(shard.multi);
  }
  if (resolve_) curl_slist_free_all(resolve_);
}

void CurlTransport::setup_client(CurlClient& cc, LiveClient& c) {
  const auto& r = shared_.request;
  const RequestPlan& plan = plan_of(c);
  cc.client = &c;
  cc.sources = &shared_.options.sources;
  cc.easy = curl_easy_init();
  if (!cc.easy) throw std::runtime_error("curl_easy_init failed");
  CURL* e = cc.easy;
  curl_easy_setopt(e, CURLOPT_URL, r.url.text.c_str());
  curl_easy_setopt(e, CURLOPT_PRIVATE, &c);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(shared_.timeout_ms));
  curl_easy_setopt(e, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
  // HTTP/1.1: with h2 over TLS libcurl would multiplex the whole fleet on one connection.
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(e, CURLOPT_USERAGENT, user_agent());
  if (r.records_tokens) {
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &keep_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &cc.body);
  } else {
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &discard_body);
  }
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &cc);
  if (resolve_) curl_easy_setopt(e, CURLOPT_RESOLVE, resolve_);
  curl_easy_setopt(e, CURLOPT_NOPROXY, "*");         // the fleet goes straight to the target
  if (r.url.scheme == "https") apply_tls(e, r.tls);  // as the probe found them working
  curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &CurlTransport::on_open_socket);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &cc);
  curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, &CurlTransport::on_socket_options);
  curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, &cc);
  curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, &CurlTransport::on_request_ready);
  curl_easy_setopt(e, CURLOPT_PREREQDATA, &c);
  apply_method(e, plan);

  // The plan's lines in place: send() rewrites the attempt's, which these nodes point at.
  std::vector<const char*> lines = plan.lines();
  // libcurl asks for 100-continue before a large body; that round trip is not the client's.
  if (!r.body.empty()) lines.push_back("Expect:");
  if (lines.empty()) return;
  cc.header_nodes.resize(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    cc.header_nodes[i].data = const_cast<char*>(lines[i]);
    cc.header_nodes[i].next = i + 1 < lines.size() ? &cc.header_nodes[i + 1] : nullptr;
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, cc.header_nodes.data());
}

void CurlTransport::send(LiveClient& c) {
  CurlClient& cc = curl_client(c);
  cc.head_bytes = 0;
  cc.interims = 0;
  cc.began = cc.head_ended = cc.final_head = cc.malformed = false;
  cc.body.clear();
  const RequestPlan& plan = plan_attempt(c);
  if (c.occ) apply_method(cc.easy, plan);  // the cycle's read or write
  curl_multi_add_handle(shard_of(c).multi, cc.easy);
}

void CurlTransport::abort(LiveClient& c) {
  curl_multi_remove_handle(shard_of(c).multi, curl_client(c).easy);
}

curl_socket_t CurlTransport::on_open_socket(void* data, curlsocktype purpose, curl_sockaddr* a) {
  auto& cc = *static_cast<CurlClient*>(data);
  LiveClient& c = *cc.client;
  if (purpose == CURLSOCKTYPE_IPCXN && c.own_fd >= 0) {
    const int fd = std::exchange(c.own_fd, -1);
    // Unused since t=0, it may have been closed by the server meanwhile: then a fresh one.
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, 0) == 0) {
      cc.handed_fd = fd;
      return fd;
    }
    close(fd);
  }
  const int fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
  // A reconnect binds as the first connection did, or the fleet would run out of ports.
  if (fd >= 0 && a->family == AF_INET && bind_source(fd, source_of(*cc.sources, c.id))) {
    close(fd);
    return CURL_SOCKET_BAD;
  }
  return fd;
}

int CurlTransport::on_socket_options(void* data, curl_socket_t fd, curlsocktype) {
  auto& cc = *static_cast<CurlClient*>(data);
  enable_receive_stamps(fd);
  if (fd != cc.handed_fd) return CURL_SOCKOPT_OK;
  cc.handed_fd = -1;
  return CURL_SOCKOPT_ALREADY_CONNECTED;
}

int CurlTransport::on_request_ready(void* client, char*, char*, int, int) {
  static_cast<LiveClient*>(client)->sent_wall_ns = ScenarioClock::steady_ns();
  return CURL_PREREQFUNC_OK;
}

int CurlTransport::on_socket(CURL*, curl_socket_t s, int what, void* data, void* socket_data) {
  auto& shard = *static_cast<CurlShard*>(data);
  const int epoll_fd = shard.transport->epoll_fd_;
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, s, nullptr);  // may already be closed
    curl_multi_assign(shard.multi, s, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.u64 = event_data(shard.index + 1, s);
  const int op = socket_data ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(epoll_fd, op, s, &ev) != 0) {
    // A descriptor number reused before libcurl told us the old one went: try the other op.
    epoll_ctl(epoll_fd, op == EPOLL_CTL_ADD ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev);
  }
  if (!socket_data) curl_multi_assign(shard.multi, s, &shard);
  return 0;
}

int CurlTransport::on_timer(CURLM*, long timeout_ms, void* data) {
  auto& shard = *static_cast<CurlShard*>(data);
  shard.deadline_ns =
      timeout_ms < 0 ? -1 : ScenarioClock::steady_after(saturating_mul(timeout_ms, 1'000'000));
  return 0;
}

void CurlTransport::on_event(std::uint32_t tag, int fd, std::uint32_t events) {
  int mask = 0;
  if (events & EPOLLIN) {
    mask |= CURL_CSELECT_IN;
    if (shared_.options.compensate_latency) note_arrival(fd);
  }
  if (events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
  if (events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
  socket_action(shards_[tag - 1], fd, mask);
}

void CurlTransport::note_arrival(int fd) {
  StampControl control;
  msghdr msg{};
  control.attach(msg);
  if (recvmsg(fd, &msg, MSG_PEEK | MSG_DONTWAIT) < 0) return;
  const auto at = receive_stamp_ns(msg);
  if (!at) return;
  if (static_cast<std::size_t>(fd) >= arrived_wall_ns_.size()) arrived_wall_ns_.resize(fd + 1, 0);
  arrived_wall_ns_[fd] = *at;
}

std::int64_t CurlTransport::arrival_of(const CurlClient& cc, std::int64_t now_wall_ns) {
  curl_socket_t fd = CURL_SOCKET_BAD;
  // The connection the answer came on; gone (CURL_SOCKET_BAD) if libcurl closed it.
  if (curl_easy_getinfo(cc.easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd < 0)
    return now_wall_ns;
  const LiveClient& c = *cc.client;
  const std::int64_t sent = c.sent_wall_ns ? c.sent_wall_ns : c.handed_wall_ns;
  std::int64_t at = 0;
  if (static_cast<std::size_t>(fd) < arrived_wall_ns_.size())
    at = std::exchange(arrived_wall_ns_[fd], 0);
  // A stamp from before this attempt's write is an earlier answer's: not this one.
  if (at >= sent && at <= now_wall_ns) return at;
  // Read by libcurl before this loop saw the socket readable (libcurl polls it too): the
  // kernel keeps when data last came in, in whole ticks; a tick later than that is never
  // early, and at most two ticks late.
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return now_wall_ns;
  const std::int64_t since_ns = info.tcpi_last_data_recv * 1'000'000LL - kernel_tick_ns();
  return std::clamp<std::int64_t>(now_wall_ns - since_ns, sent, now_wall_ns);
}

void CurlTransport::socket_action(CurlShard& shard, curl_socket_t s, int mask) {
  int running = 0;
  shard.active = true;
  curl_multi_socket_action(shard.multi, s, mask, &running);
}

std::int64_t CurlTransport::run_timers() {
  const std::int64_t now = ScenarioClock::steady_ns();
  for (auto& shard : shards_) {
    if (shard.deadline_ns < 0 || shard.deadline_ns > now) continue;
    socket_action(shard, CURL_SOCKET_TIMEOUT, 0);
    // libcurl calls the timer callback only when its earliest expiry changes, so ask: an
    // expiry it already reported and did not run yet would otherwise be lost.
    long timeout_ms = -1;
    curl_multi_timeout(shard.multi, &timeout_ms);
    shard.deadline_ns =
        timeout_ms < 0 ? -1 : ScenarioClock::steady_after(saturating_mul(timeout_ms, 1'000'000));
    sink_.start_due_sends();
  }
  // A send started above may have gone to a shard this loop had passed, setting its timer:
  // the earliest expiry is taken over all shards after every one has run.
  std::int64_t next = -1;
  for (const auto& shard : shards_) {
    if (shard.deadline_ns >= 0 && (next < 0 || shard.deadline_ns < next)) next = shard.deadline_ns;
  }
  return next;
}

// What libcurl takes as an answer and the native client does not, named as that one names
// it, so that both clients count the same: a status outside 200-599 (libcurl hands over a 999),
// a head the connection's close cut off (libcurl: an answer with the headers so far), a head
// past the bounds. A failed answer's headers are not the client's to act on.
void CurlTransport::judge_answer(const CurlClient& cc, AttemptAnswer& a) {
  const bool ok = a.transport_error == TransportError::kNone;
  if (cc.malformed || (ok && (!cc.head_ended || a.status < 200 || a.status > 599))) {
    a.transport_error = TransportError::kBadResponse;
    a.status = 0;
  }
  if (a.transport_error != TransportError::kNone) clear_answer_headers(*cc.client);
}

void CurlTransport::deliver_answers() {
  for (auto& shard : shards_) {
    if (!shard.active) continue;
    shard.active = false;
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(shard.multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      LiveClient* c = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &c);
      CurlClient& cc = curl_client(*c);
      const std::int64_t now_wall = ScenarioClock::steady_ns();
      AttemptAnswer a;
      a.transport_error = transport_error_of(msg->data.result);
      a.answered_wall_ns = shared_.options.compensate_latency ? arrival_of(cc, now_wall) : now_wall;
      long status = 0;
      if (msg->data.result == CURLE_OK) curl_easy_getinfo(cc.easy, CURLINFO_RESPONSE_CODE, &status);
      a.status = static_cast<int>(status);
      a.answer_began = cc.began;
      judge_answer(cc, a);
      if (shared_.request.records_tokens && a.transport_error == TransportError::kNone)
        read_kept_body(a, cc.body, shared_.request.tokens_asked.has_value());
      curl_multi_remove_handle(shard.multi, cc.easy);
      sink_.answered(*c, a);
    }
  }
}

}  // namespace stampede
