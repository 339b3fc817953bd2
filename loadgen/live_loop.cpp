#include "live_loop.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <utility>

#include "generated/version.hpp"
#include "retry_after_header.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr int kMaxEvents = 512;
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

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

std::size_t discard_body(char*, std::size_t size, std::size_t n, void*) {
  return size * n;
}

bool starts_with_nocase(const char* text, std::size_t len, std::string_view prefix) {
  if (len < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

std::size_t on_header(char* line, std::size_t size, std::size_t n, void* data) {
  auto& c = *static_cast<LiveClient*>(data);
  const std::size_t len = size * n;
  constexpr std::string_view kRetryAfter = "retry-after:";
  constexpr std::string_view kEtag = "etag:";
  constexpr std::string_view kShouldRetry = "x-should-retry:";
  if (starts_with_nocase(line, len, "http/")) {
    c.retry_after.clear();  // a new response (after a 100 Continue) starts over
    c.should_retry = true;
    if (c.occ) c.occ->etag.clear();
  } else if (starts_with_nocase(line, len, kShouldRetry)) {
    // As the Anthropic and OpenAI SDKs read it: "false" forbids a retry.
    std::string_view value(line + kShouldRetry.size(), len - kShouldRetry.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    c.should_retry = !starts_with_nocase(value.data(), value.size(), "false");
  } else if (starts_with_nocase(line, len, kRetryAfter)) {
    c.retry_after.assign(line + kRetryAfter.size(), len - kRetryAfter.size());
  } else if (c.occ && starts_with_nocase(line, len, kEtag)) {
    c.occ->etag.assign(line + kEtag.size(), len - kEtag.size());
  }
  return len;
}

// An epoll event's data: the shard (plus one; 0 is the loop's own timer and wake descriptors)
// in the high half, the descriptor in the low half.
std::uint64_t event_data(std::uint64_t shard_plus_one, int fd) {
  return (shard_plus_one << 32) | static_cast<std::uint32_t>(fd);
}

Outcome outcome_of(CURLcode result, long status) {
  if (result == CURLE_OK) return classify_status(static_cast<int>(status));
  if (result == CURLE_OPERATION_TIMEDOUT) return Outcome::kTimeout;
  // Refused, reset, closed without an answer, TLS failures: no answer from the server.
  return Outcome::kConnectError;
}

}  // namespace

LiveShared::LiveShared(const Scenario& s, const LiveRequest& r, const LiveOptions& o)
    : scenario(s),
      request(r),
      options(o),
      policy(RetryPolicy::from(s.fleet)),
      clock(o.time_scale),
      workload_(s.fleet, o.shard.count) {
  timeout_ms = std::max<std::int64_t>(1, clock.wall_ns(s.fleet.timeout_ns) / 1'000'000);
  fixed_headers = r.headers;
  // libcurl asks for 100-continue before a large body; that round trip is not the client's.
  if (!r.body.empty()) fixed_headers.emplace_back("Expect:");
  for (const auto& key : r.api_keys) tenant_headers.push_back(r.tenant_header + ": " + key);
  // Every request declares its tokens where the provider of the same scenario reads them.
  if (s.fleet.tokens)
    fixed_headers.push_back(s.provider.token_header + ": " + std::to_string(*s.fleet.tokens));
  if (!o.resolve_entry.empty()) resolve = curl_slist_append(nullptr, o.resolve_entry.c_str());
}

std::optional<WorkItem> LiveShared::next_item(std::int64_t client, std::int64_t previous) {
  std::lock_guard lock(workload_mutex_);
  return workload_.next(client, previous);
}

void LiveShared::request_stop(StopReason reason, std::int64_t abort_at_wall_ns) {
  int none = static_cast<int>(StopReason::kNone);
  if (stop_reason.compare_exchange_strong(none, static_cast<int>(reason))) {
    abort_at_ns.store(abort_at_wall_ns);
  } else {
    // A second stop (a second Ctrl-C) may only shorten the grace.
    std::int64_t current = abort_at_ns.load();
    while (abort_at_wall_ns < current &&
           !abort_at_ns.compare_exchange_weak(current, abort_at_wall_ns)) {
    }
  }
  stop_requested.store(true);
}

LiveLoop::LiveLoop(LiveShared& shared, unsigned index, unsigned loops) : shared_(shared) {
  const auto clients =
      static_cast<std::uint32_t>(shared.options.shard.clients_below(shared.scenario.fleet.clients));
  // Sized once: libcurl and the header lists hold pointers into it.
  clients_.resize((clients - index + loops - 1) / loops);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) fail("epoll_create1");
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd_ < 0) fail("timerfd_create");
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) fail("eventfd");
  for (const int fd : {timer_fd_, wake_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = event_data(0, fd);
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) fail("epoll_ctl");
  }
  shards_.resize((clients_.size() + kClientsPerShard - 1) / kClientsPerShard);
  for (std::uint32_t i = 0; i < shards_.size(); ++i) {
    auto& shard = shards_[i];
    shard.loop = this;
    shard.index = i;
    shard.multi = curl_multi_init();
    if (!shard.multi) throw std::runtime_error("curl_multi_init failed");
    curl_multi_setopt(shard.multi, CURLMOPT_SOCKETFUNCTION, &LiveLoop::on_socket);
    curl_multi_setopt(shard.multi, CURLMOPT_SOCKETDATA, &shard);
    curl_multi_setopt(shard.multi, CURLMOPT_TIMERFUNCTION, &LiveLoop::on_timer);
    curl_multi_setopt(shard.multi, CURLMOPT_TIMERDATA, &shard);
    // Keep every connection the shard's clients opened: none is closed for want of room.
    curl_multi_setopt(shard.multi, CURLMOPT_MAXCONNECTS, static_cast<long>(kClientsPerShard + 4));
    curl_multi_setopt(shard.multi, CURLMOPT_PIPELINING, CURLPIPE_NOTHING);
  }
  for (std::uint32_t i = 0; i < clients_.size(); ++i) {
    clients_[i].id = static_cast<std::uint32_t>(shared.options.shard.client(index + i * loops));
    setup_client(clients_[i]);
  }
}

LiveLoop::~LiveLoop() {
  for (auto& c : clients_) {
    if (c.own_fd >= 0) close(c.own_fd);
    if (!c.easy) continue;
    if (c.state == LiveClient::State::kInFlight)
      curl_multi_remove_handle(shard_of(c).multi, c.easy);
    curl_easy_cleanup(c.easy);
  }
  for (auto& shard : shards_) {
    if (shard.multi) curl_multi_cleanup(shard.multi);
  }
  for (const int fd : {epoll_fd_, timer_fd_, wake_fd_}) {
    if (fd >= 0) close(fd);
  }
}

void LiveLoop::setup_client(LiveClient& c) {
  const auto& fleet = shared_.scenario.fleet;
  const auto& r = shared_.request;
  c.rng = make_stream(fleet.seed, c.id);
  c.guards = RetryPolicy::make_guards(fleet);
  c.retry_after.reserve(64);
  c.easy = curl_easy_init();
  if (!c.easy) throw std::runtime_error("curl_easy_init failed");
  CURL* e = c.easy;
  curl_easy_setopt(e, CURLOPT_URL, r.url.text.c_str());
  curl_easy_setopt(e, CURLOPT_PRIVATE, &c);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(shared_.timeout_ms));
  curl_easy_setopt(e, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
  // HTTP/1.1: with h2 over TLS libcurl would multiplex the whole fleet on one connection.
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(e, CURLOPT_USERAGENT, (std::string("stampede-loadgen/") + kVersion).c_str());
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &discard_body);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &c);
  if (shared_.resolve) curl_easy_setopt(e, CURLOPT_RESOLVE, shared_.resolve);
  curl_easy_setopt(e, CURLOPT_NOPROXY, "*");  // the fleet goes straight to the target
  curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &LiveLoop::on_open_socket);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &c);
  curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, &LiveLoop::on_socket_options);
  curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, &c);
  curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, &LiveLoop::on_request_ready);
  curl_easy_setopt(e, CURLOPT_PREREQDATA, &c);
  if (r.method == "HEAD") {
    curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
  } else if (r.method != "GET" || !r.body.empty()) {
    if (r.method != "POST") curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    if (!r.body.empty() || r.method == "POST") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.c_str());
    }
  }

  std::vector<const char*> lines;
  for (const auto& h : shared_.fixed_headers) lines.push_back(h.c_str());
  if (shared_.scenario.provider.mode == ProviderMode::kOcc) {
    c.occ.emplace();
    lines.push_back(c.occ->if_match_line.data());
  }
  if (!shared_.tenant_headers.empty())
    lines.push_back(shared_.tenant_headers[c.id % shared_.tenant_headers.size()].c_str());
  if (r.trace_headers) {
    c.client_id_line = "X-Client-Id: " + std::to_string(c.id);
    lines.push_back(c.client_id_line.c_str());
    lines.push_back(c.attempt_line.data());
    lines.push_back(c.request_id_line.data());
  }
  if (lines.empty()) return;
  c.header_nodes.resize(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    c.header_nodes[i].data = const_cast<char*>(lines[i]);
    c.header_nodes[i].next = i + 1 < lines.size() ? &c.header_nodes[i + 1] : nullptr;
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, c.header_nodes.data());
}

void LiveLoop::adopt_connections(const std::vector<int>& fds_by_client) {
  for (auto& c : clients_) {
    if (c.id < fds_by_client.size()) c.own_fd = fds_by_client[c.id];
  }
}

curl_socket_t LiveLoop::on_open_socket(void* client, curlsocktype purpose, curl_sockaddr* a) {
  auto& c = *static_cast<LiveClient*>(client);
  if (purpose == CURLSOCKTYPE_IPCXN && c.own_fd >= 0) {
    const int fd = std::exchange(c.own_fd, -1);
    // Unused since t=0, it may have been closed by the server meanwhile: then a fresh one.
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, 0) == 0) {
      c.handed_fd = fd;
      return fd;
    }
    close(fd);
  }
  return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

int LiveLoop::on_socket_options(void* client, curl_socket_t fd, curlsocktype) {
  auto& c = *static_cast<LiveClient*>(client);
  // The kernel stamps what arrives, so an answer's time is when it reached the client.
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
  if (fd != c.handed_fd) return CURL_SOCKOPT_OK;
  c.handed_fd = -1;
  return CURL_SOCKOPT_ALREADY_CONNECTED;
}

int LiveLoop::on_request_ready(void* client, char*, char*, int, int) {
  static_cast<LiveClient*>(client)->sent_wall_ns = ScenarioClock::steady_ns();
  return CURL_PREREQFUNC_OK;
}

void LiveLoop::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = write(wake_fd_, &one, sizeof one);
}

int LiveLoop::on_socket(CURL*, curl_socket_t s, int what, void* data, void* socket_data) {
  auto& shard = *static_cast<CurlShard*>(data);
  const int epoll_fd = shard.loop->epoll_fd_;
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, s, nullptr);  // may already be closed
    curl_multi_assign(shard.multi, s, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.u64 = event_data(shard.index + 1ULL, s);
  const int op = socket_data ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(epoll_fd, op, s, &ev) != 0) {
    // A descriptor number reused before libcurl told us the old one went: try the other op.
    epoll_ctl(epoll_fd, op == EPOLL_CTL_ADD ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev);
  }
  if (!socket_data) curl_multi_assign(shard.multi, s, &shard);
  return 0;
}

int LiveLoop::on_timer(CURLM*, long timeout_ms, void* data) {
  auto& shard = *static_cast<CurlShard*>(data);
  shard.deadline_ns = timeout_ms < 0 ? -1
                                     : ScenarioClock::steady_ns() +
                                           static_cast<std::int64_t>(timeout_ms) * 1'000'000;
  return 0;
}

void LiveLoop::note_arrival(int fd) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, MSG_PEEK | MSG_DONTWAIT) < 0) return;
  for (cmsghdr* h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec ts{};
    std::memcpy(&ts, CMSG_DATA(h), sizeof ts);
    if (static_cast<std::size_t>(fd) >= arrived_wall_ns_.size()) arrived_wall_ns_.resize(fd + 1, 0);
    arrived_wall_ns_[fd] = ts.tv_sec * 1'000'000'000LL + ts.tv_nsec + steady_minus_real_ns_;
  }
}

std::int64_t LiveLoop::arrival_of(const LiveClient& c, std::int64_t now_wall_ns) {
  curl_socket_t fd = CURL_SOCKET_BAD;
  // The connection the answer came on; gone (CURL_SOCKET_BAD) if libcurl closed it.
  if (curl_easy_getinfo(c.easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd < 0)
    return now_wall_ns;
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

void LiveLoop::socket_action(CurlShard& shard, curl_socket_t s, int mask) {
  int running = 0;
  shard.active = true;
  curl_multi_socket_action(shard.multi, s, mask, &running);
}

std::int64_t LiveLoop::run_curl_timers() {
  const std::int64_t now = ScenarioClock::steady_ns();
  std::int64_t next = -1;
  for (auto& shard : shards_) {
    if (shard.deadline_ns >= 0 && shard.deadline_ns <= now) {
      socket_action(shard, CURL_SOCKET_TIMEOUT, 0);
      // libcurl calls the timer callback only when its earliest expiry changes, so ask: an
      // expiry it already reported and did not run yet would otherwise be lost.
      long timeout_ms = -1;
      curl_multi_timeout(shard.multi, &timeout_ms);
      shard.deadline_ns = timeout_ms < 0 ? -1 : ScenarioClock::steady_ns() + timeout_ms * 1'000'000;
      start_due_sends();
    }
  }
  // A send started above may have gone to a shard this loop had passed, setting its timer:
  // the earliest expiry is taken over all shards after every one has run.
  for (const auto& shard : shards_) {
    if (shard.deadline_ns >= 0 && (next < 0 || shard.deadline_ns < next)) next = shard.deadline_ns;
  }
  return next;
}

void LiveLoop::arm_timer(std::int64_t at_wall_ns) {
  if (at_wall_ns == armed_ns_) return;
  itimerspec spec{};
  if (at_wall_ns != kNever) {
    // An absolute time of zero would disarm the timer; anything due is due now.
    const std::int64_t at = std::max<std::int64_t>(at_wall_ns, 1);
    spec.it_value.tv_sec = at / 1'000'000'000;
    spec.it_value.tv_nsec = at % 1'000'000'000;
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_ns_ = at_wall_ns;
}

void LiveLoop::run() {
  // The kernel may defer a timer by the thread's slack (50 us by default): ask for none.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  prctl(PR_SET_NAME, "live-loop", 0, 0, 0);
  max_deadline_ns_ = shared_.clock.to_steady_ns(0) + shared_.options.max_duration_ns;
  for (auto& c : clients_) take_next_item(c, 0);
  std::array<epoll_event, kMaxEvents> events{};
  while (true) {
    std::int64_t now = ScenarioClock::steady_ns();
    if (!stopping_ && now >= max_deadline_ns_) {
      shared_.request_stop(StopReason::kMaxDuration, max_deadline_ns_ + shared_.options.grace_ns);
    }
    if (!stopping_ && shared_.stop_requested.load(std::memory_order_relaxed)) begin_stop(now);
    if (stopping_) {
      abort_at_ns_ = shared_.abort_at_ns.load(std::memory_order_relaxed);
      if (now >= abort_at_ns_) abort_in_flight();
    }
    start_due_sends();
    const std::int64_t curl_next = run_curl_timers();
    read_completions();
    if (in_flight_ == 0 && heap_.empty()) break;

    std::int64_t next = curl_next >= 0 ? curl_next : kNever;
    if (stopping_) {
      next = std::min(next, abort_at_ns_);
    } else {
      if (!heap_.empty()) next = std::min(next, heap_.top().due_ns);
      next = std::min(next, max_deadline_ns_);
    }
    int wait_ms = -1;
    if (next <= ScenarioClock::steady_ns()) {
      wait_ms = 0;
    } else {
      arm_timer(next);
    }
    const int n = epoll_wait(epoll_fd_, events.data(), kMaxEvents, wait_ms);
    const bool note_arrivals = n > 0 && shared_.options.compensate_latency;
    if (note_arrivals)
      steady_minus_real_ns_ = ScenarioClock::steady_ns() - ScenarioClock::unix_ns();
    for (int i = 0; i < n; ++i) {
      const std::uint64_t data = events[i].data.u64;
      const int fd = static_cast<int>(data & 0xFFFFFFFFu);
      if ((data >> 32) == 0) {
        std::uint64_t count = 0;
        [[maybe_unused]] const auto r = read(fd, &count, sizeof count);
        if (fd == timer_fd_) armed_ns_ = -1;
        continue;
      }
      int mask = 0;
      if (events[i].events & EPOLLIN) {
        mask |= CURL_CSELECT_IN;
        if (note_arrivals) note_arrival(fd);
      }
      if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
      if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
      socket_action(shards_[(data >> 32) - 1], fd, mask);
      // A send that fell due goes out before the next answer is read: the provider sees the
      // sends, and an answer read later is compensated.
      if (start_due_sends()) run_curl_timers();
    }
    read_completions();
  }
}

void LiveLoop::take_next_item(LiveClient& c, std::int64_t now_ns) {
  const auto item = shared_.next_item(c.id, c.item_id);
  if (!item) {
    c.state = LiveClient::State::kIdle;
    c.item_id = -1;
    return;
  }
  c.item_id = item->id;
  c.item_intended_ns = item->intended_ns;
  c.item = ItemState{};
  if (c.occ) c.occ->cycle = OccCycle{};
  c.sends = 0;
  c.last_outcome.reset();
  c.last_status = 0;
  std::int64_t at = std::max(now_ns, item->intended_ns);
  at = RetryPolicy::send_at(at, c.guards);
  schedule(c, at);
}

void LiveLoop::schedule(LiveClient& c, std::int64_t at_ns) {
  c.send_at_ns = at_ns;
  c.state = LiveClient::State::kWaiting;
  // A compensated schedule can ask for a moment already past: the send is due now, and the
  // harness is late only from now on.
  const std::int64_t due = std::max(shared_.clock.to_steady_ns(at_ns), ScenarioClock::steady_ns());
  heap_.push(due, static_cast<std::uint32_t>(&c - clients_.data()));
}

bool LiveLoop::start_due_sends() {
  if (stopping_ || heap_.empty()) return false;
  const std::int64_t now = ScenarioClock::steady_ns();
  bool started = false;
  while (!heap_.empty() && heap_.top().due_ns <= now) {
    const auto entry = heap_.top();
    heap_.pop();
    start_attempt(clients_[entry.client], entry.due_ns);
    started = true;
  }
  return started;
}

void LiveLoop::start_attempt(LiveClient& c, std::int64_t due_wall_ns) {
  // occ mode: a write follows its read at once, with no backoff between them.
  const bool occ_write = c.occ && prepare_occ_request(c.easy, *c.occ);
  recording.writes += occ_write;
  // The item's first attempt: no retry yet and nothing sent (an attempt dropped on the client
  // by an adaptive throttle is a retry's reason, not a send).
  if (c.item.retries == 0 && c.sends == 0) {
    c.item.start_ns = c.send_at_ns;  // the deadline counts from the first send's schedule
  } else if (!occ_write) {
    recording.backoff.add(c.send_at_ns, 1);
    bump(counters_.in_backoff, -1);
  }
  if (RetryPolicy::rejects_locally(c.send_at_ns, c.guards, c.rng)) return reject_locally(c);
  ++c.sends;
  c.due_wall_ns = due_wall_ns;
  c.handed_wall_ns = ScenarioClock::steady_ns();
  c.sent_wall_ns = 0;
  c.wake_lateness_ns = std::max<std::int64_t>(0, c.handed_wall_ns - due_wall_ns);
  recording.lateness_ns.record(c.wake_lateness_ns);
  c.retry_after.clear();
  if (shared_.request.trace_headers) {
    std::snprintf(c.attempt_line.data(), c.attempt_line.size(), "X-Attempt: %d", c.sends);
    std::snprintf(c.request_id_line.data(), c.request_id_line.size(), "X-Request-Id: %lld",
                  static_cast<long long>(c.item_id));
  }
  c.state = LiveClient::State::kInFlight;
  curl_multi_add_handle(shard_of(c).multi, c.easy);
  ++in_flight_;
  bump(counters_.sent);
}

std::int64_t LiveLoop::answer_time(const LiveClient& c, std::int64_t answered_wall_ns,
                                   bool provider_clock) const {
  if (!shared_.options.compensate_latency) return shared_.clock.to_scenario_ns(answered_wall_ns);
  const std::int64_t sent_wall = c.sent_wall_ns ? c.sent_wall_ns : c.handed_wall_ns;
  const std::int64_t on_the_wire = std::max<std::int64_t>(0, answered_wall_ns - sent_wall);
  // A Retry-After counts from when the provider answered, on its clock: from the send as it
  // went, however late, so that no retry goes before the provider said.
  return (provider_clock ? std::max(c.send_at_ns, c.sent_ns) : c.send_at_ns) + on_the_wire;
}

void LiveLoop::stamp_send(LiveClient& c) {
  const std::int64_t sent = c.sent_wall_ns ? c.sent_wall_ns : c.handed_wall_ns;
  c.send_lateness_ns = std::max<std::int64_t>(0, sent - c.due_wall_ns);
  send_lateness_ns.record(c.send_lateness_ns);
  c.sent_ns = shared_.clock.to_scenario_ns(sent);
}

void LiveLoop::read_completions() {
  for (auto& shard : shards_) {
    if (!shard.active) continue;
    shard.active = false;
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(shard.multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      LiveClient* c = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &c);
      const CURLcode result = msg->data.result;
      complete(*c, result);
    }
  }
}

void LiveLoop::complete(LiveClient& c, CURLcode result) {
  const std::int64_t now_wall = ScenarioClock::steady_ns();
  const std::int64_t answered_wall =
      shared_.options.compensate_latency ? arrival_of(c, now_wall) : now_wall;
  long status = 0;
  if (result == CURLE_OK) curl_easy_getinfo(c.easy, CURLINFO_RESPONSE_CODE, &status);
  curl_multi_remove_handle(shard_of(c).multi, c.easy);
  --in_flight_;
  const Outcome outcome = outcome_of(result, status);
  stamp_send(c);
  recording.record_send(c.sent_ns, outcome);
  switch (outcome) {
    case Outcome::kOk:
      bump(counters_.ok);
      break;
    case Outcome::kRateLimited:
      bump(counters_.rate_limited);
      break;
    case Outcome::kUnavailable:
    case Outcome::kOverloaded:
    case Outcome::kServerError:
      bump(counters_.server_errors);
      break;
    default:
      bump(counters_.errors);
  }
  if (c.sends == 1) {
    ++first_sends;
    if (outcome == Outcome::kConnectError) ++first_send_connect_errors;
  }
  std::optional<std::int64_t> hint;
  if (!c.retry_after.empty()) {
    if (const auto h = parse_retry_after(c.retry_after, ScenarioClock::unix_ns())) {
      // A delta is on the provider's clock already; a date's distance is a wall duration.
      hint = h->from_date ? static_cast<std::int64_t>(static_cast<double>(h->delay_ns) /
                                                      shared_.clock.time_scale())
                          : h->delay_ns;
    }
  }
  const bool follows_hint = hint && shared_.scenario.fleet.retry_after != RetryAfterMode::kIgnore;
  const std::int64_t now = answer_time(c, answered_wall, follows_hint);
  if (shared_.options.keep_attempts) {
    attempts.push_back({c.id, c.item_id, c.sends, c.send_at_ns, c.sent_ns, now, c.wake_lateness_ns,
                        c.send_lateness_ns, static_cast<int>(status), outcome,
                        static_cast<int>(result), hint.value_or(-1)});
  }
  c.last_outcome = outcome;
  c.last_status = static_cast<int>(status);
  if (c.occ) {
    const OccStep next = occ_after_answer(shared_.policy, *c.occ, now, outcome, c.last_status, hint,
                                          c.item, c.guards, c.rng);
    if (!next.write_now) return finish_item(c, next.step, now);
    return stopping_ ? leave_unfinished(c, now) : schedule(c, now);
  }
  const Step step =
      shared_.policy.on_outcome(now, outcome, hint, c.item, c.guards, c.rng, c.should_retry);
  finish_item(c, step, now);
}

// Adaptive throttling dropped the send on the client: it fails as a 429 that never left.
void LiveLoop::reject_locally(LiveClient& c) {
  const std::int64_t now = c.send_at_ns;
  c.last_outcome = Outcome::kRateLimited;
  c.last_status = 0;
  finish_item(
      c,
      shared_.policy.on_outcome(now, Outcome::kRateLimited, std::nullopt, c.item, c.guards, c.rng),
      now);
}

void LiveLoop::finish_item(LiveClient& c, const Step& step, std::int64_t now_ns) {
  switch (step.kind) {
    case Step::Kind::kRetryAt:
      if (stopping_) return leave_unfinished(c, now_ns);
      recording.backoff.add(now_ns, 0);
      bump(counters_.in_backoff);
      schedule(c, step.at_ns);
      return;
    case Step::Kind::kDone:
      ++recording.delivered;
      bump(counters_.delivered);
      recording.item_latency_ns.record(now_ns - c.item_intended_ns);
      recording.drain_ns = std::max(recording.drain_ns, now_ns);
      break;
    case Step::Kind::kDeadLetter:
      ++recording.dead_lettered;
      bump(counters_.dead_lettered);
      dead_letters.push_back({c.item_id, c.id, c.sends, c.last_outcome, c.last_status,
                              to_string(step.reason), now_ns});
      break;
  }
  recording.sends_per_item.record(c.sends);
  c.state = LiveClient::State::kIdle;
  if (!stopping_) take_next_item(c, now_ns);
}

void LiveLoop::leave_unfinished(LiveClient& c, std::int64_t now_ns) {
  dead_letters.push_back(
      {c.item_id, c.id, c.sends, c.last_outcome, c.last_status, kUnfinishedReason, now_ns});
  c.state = LiveClient::State::kIdle;
}

void LiveLoop::begin_stop(std::int64_t now_wall_ns) {
  stopping_ = true;
  const std::int64_t now = shared_.clock.to_scenario_ns(now_wall_ns);
  for (auto& c : clients_) {
    if (c.state == LiveClient::State::kWaiting) leave_unfinished(c, now);
  }
  heap_.clear();
  counters_.in_backoff.store(0, std::memory_order_relaxed);
}

void LiveLoop::abort_in_flight() {
  const std::int64_t now = shared_.clock.now_ns();
  for (auto& c : clients_) {
    if (c.state != LiveClient::State::kInFlight) continue;
    curl_multi_remove_handle(shard_of(c).multi, c.easy);
    --in_flight_;
    // It went, and may have arrived: count it, as a request that got no answer in time.
    stamp_send(c);
    recording.record_send(c.sent_ns, Outcome::kTimeout);
    if (shared_.options.keep_attempts) {
      attempts.push_back({c.id, c.item_id, c.sends, c.send_at_ns, c.sent_ns, -1, c.wake_lateness_ns,
                          c.send_lateness_ns, 0, Outcome::kTimeout,
                          static_cast<int>(CURLE_ABORTED_BY_CALLBACK), -1});
    }
    leave_unfinished(c, now);
  }
}

}  // namespace stampede
