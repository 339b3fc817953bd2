#include "upstream/curl_pool.hpp"
#include "scenario_clock.hpp"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "answer_parser.hpp"
#include "http_token.hpp"
#include "upstream/resend_rule.hpp"

namespace stampede {
namespace {

constexpr std::size_t kMaxSpareHandles = 256;

CURLM* multi_of(void* m) {
  return static_cast<CURLM*>(m);
}
CURL* easy_of(void* h) {
  return static_cast<CURL*>(h);
}

// A header line without its line end.
std::string_view line_of(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  return line;
}

UpstreamFailure failure_of(CURLcode rc) {
  switch (rc) {
    case CURLE_OK:
      return UpstreamFailure::kNone;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
      return UpstreamFailure::kRefused;
    case CURLE_OPERATION_TIMEDOUT:
      return UpstreamFailure::kTimedOut;
    default:
      return UpstreamFailure::kBroken;
  }
}

std::optional<std::size_t> content_length(const UpstreamExchange& x) {
  for (const auto& [name, value] : x.answer_headers) {
    if (!ascii_iequals(name, "content-length")) continue;
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec == std::errc() && end == value.data() + value.size()) return n;
  }
  return std::nullopt;
}

bool has_header(const std::vector<std::string>& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(), [&](const std::string& h) {
    return h.size() > name.size() && h[name.size()] == ':' &&
           ascii_iequals(std::string_view(h).substr(0, name.size()), name);
  });
}

}  // namespace

struct CurlPool::Callbacks {
  static std::size_t refuse(UpstreamExchange& x, std::string why) {
    x.failure_detail = std::move(why);
    return 0;
  }

  static int on_socket(CURL* /*easy*/, curl_socket_t s, int what, void* userp, void* /*socketp*/) {
    auto& pool = *static_cast<CurlPool*>(userp);
    Registration& r = pool.registered_[s];
    if (what == CURL_POLL_REMOVE) {
      // Kept in the set: a kept-alive connection's next request then costs no epoll_ctl.
      r.watched = false;
      return 0;
    }
    const std::uint32_t events =
        (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    r.watched = true;
    if (r.in_set && r.events == events) return 0;
    epoll_event ev{};
    ev.data.fd = s;
    ev.events = events;
    // The kernel drops a closed descriptor from the set: a new socket may have its number.
    if (!r.in_set || (epoll_ctl(pool.epoll_fd_, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT))
      epoll_ctl(pool.epoll_fd_, EPOLL_CTL_ADD, s, &ev);
    r.in_set = true;
    r.events = events;
    return 0;
  }

  static int on_timer(CURLM* /*multi*/, long timeout_ms, void* userp) {
    auto& pool = *static_cast<CurlPool*>(userp);
    pool.timer_due_ns_ = timeout_ms < 0 ? -1 : ScenarioClock::steady_ns() + timeout_ms * 1'000'000;
    return 0;
  }

  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* userp) {
    auto& x = *static_cast<UpstreamExchange*>(userp);
    const std::string_view line(data, size * n);
    // The http reader's bounds (AnswerParser), held here too: 0 makes libcurl give up.
    x.head_bytes += line.size();
    if (x.head_bytes > std::min(x.max_answer_head, AnswerParser::kMaxHead))
      return refuse(x, "the answer's head is longer than proxy mode passes on");
    if (line.starts_with("HTTP/")) {
      // A new status line: an interim answer's (1xx) headers are not the final one's.
      x.answer_headers.clear();
      const auto space = line.find(' ');
      x.status = space == std::string_view::npos ? 0 : std::atoi(line.data() + space + 1);
      if (x.status == 101)
        return refuse(x, "the upstream switched protocols (101), which no request asked");
      if (x.status < 200 && ++x.interims > AnswerParser::kMaxInterim)
        return refuse(
            x, "more than " + std::to_string(AnswerParser::kMaxInterim) + " interim (1xx) answers");
      return line.size();
    }
    if (line_of(line).empty()) {
      if (x.status >= 200) {
        x.head_done = true;
        x.answer_size = content_length(x);
        static_cast<CurlPool*>(x.pool)->events_.on_head(x);
      }
      return line.size();
    }
    const std::string_view field = line_of(line);
    const auto colon = field.find(':');
    if (colon != std::string_view::npos)
      x.answer_headers.emplace_back(field.substr(0, colon), trim_ows(field.substr(colon + 1)));
    return line.size();
  }

  static std::size_t on_write(char* data, std::size_t size, std::size_t n, void* userp) {
    auto& x = *static_cast<UpstreamExchange*>(userp);
    if (x.answer_pending().size() >= kPauseBytes) {
      x.writing_paused = true;
      return CURL_WRITEFUNC_PAUSE;  // libcurl keeps these bytes and offers them again
    }
    x.answer_body.append(data, size * n);
    static_cast<CurlPool*>(x.pool)->events_.on_body(x);
    return size * n;
  }

  static std::size_t on_read(char* buffer, std::size_t size, std::size_t n, void* userp) {
    auto& x = *static_cast<UpstreamExchange*>(userp);
    const std::size_t available = x.body.size() - x.body_sent;
    if (available == 0) {
      if (x.body_complete()) return 0;
      x.reading_paused = true;
      return CURL_READFUNC_PAUSE;
    }
    const std::size_t count = std::min(available, size * n);
    std::copy_n(x.body.data() + x.body_sent, count, buffer);
    x.body_sent += count;
    return count;
  }

  // Before each send of a request on a connection: libcurl sends it again, on a fresh
  // connection, when a kept-alive one died before any byte of the answer came (up to 5 times,
  // whatever the method). What the failed send wrote is CURLINFO_REQUEST_SIZE's count, kept
  // across the resend; an abort ends the transfer with CURLE_ABORTED_BY_CALLBACK.
  static int on_prereq(void* userp, char* /*remote_ip*/, char* /*local_ip*/, int /*remote_port*/,
                       int /*local_port*/) {
    auto& x = *static_cast<UpstreamExchange*>(userp);
    if (++x.attempt == 1) return CURL_PREREQFUNC_OK;
    long written = 0;
    curl_easy_getinfo(easy_of(x.handle), CURLINFO_REQUEST_SIZE, &written);
    if (may_resend(x.method, static_cast<std::size_t>(written), x.attempt - 1))
      return CURL_PREREQFUNC_OK;
    x.failure_detail = "the connection closed before any answer, after " + std::to_string(written) +
                       " bytes of the request; " + x.method +
                       (idempotent_method(x.method) ? " is resent only when none was written"
                                                    : " is never resent");
    return CURL_PREREQFUNC_ABORT;
  }

  // libcurl sends a request again on a fresh connection when a kept-alive one turned out
  // closed (as on_prereq lets it): the body is kept whole for that.
  static int on_seek(void* userp, curl_off_t offset, int origin) {
    auto& x = *static_cast<UpstreamExchange*>(userp);
    if (origin != SEEK_SET || offset < 0 || static_cast<std::size_t>(offset) > x.body.size())
      return CURL_SEEKFUNC_CANTSEEK;
    x.body_sent = static_cast<std::size_t>(offset);
    return CURL_SEEKFUNC_OK;
  }
};

CurlPool::CurlPool(const UpstreamConfig& config, UpstreamEvents& events)
    : config_(config), events_(events), base_(config.url.base()) {
  multi_ = curl_multi_init();
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  CURLM* m = multi_of(multi_);
  curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, &Callbacks::on_socket);
  curl_multi_setopt(m, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, &Callbacks::on_timer);
  curl_multi_setopt(m, CURLMOPT_TIMERDATA, this);
  curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(config_.connections));
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, static_cast<long>(config_.connections));
}

CurlPool::~CurlPool() {
  waiting_.take_all();  // none of them to start as the others are cancelled
  for (UpstreamExchange* x : std::vector(active_.begin(), active_.end())) cancel(*x);
  for (void* h : spare_) curl_easy_cleanup(easy_of(h));
  curl_multi_cleanup(multi_of(multi_));
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

int CurlPool::timeout_ms() const {
  std::int64_t due_ns = timer_due_ns_;
  if (sweep_due_ns_ >= 0 && (due_ns < 0 || sweep_due_ns_ < due_ns)) due_ns = sweep_due_ns_;
  if (due_ns < 0) return -1;
  const std::int64_t left_ns = std::max<std::int64_t>(0, due_ns - ScenarioClock::steady_ns());
  return static_cast<int>((left_ns + 999'999) / 1'000'000);
}

void CurlPool::waited(bool ready) {
  // libcurl looks at a kept-alive connection itself before it reuses it.
  if (ready || timeout_ms() == 0) run();
}

void CurlPool::run() {
  epoll_event events[64];
  const int n = epoll_wait(epoll_fd_, events, 64, 0);
  int running = 0;
  for (int i = 0; i < n; ++i) {
    const int fd = events[i].data.fd;
    Registration& r = registered_[fd];
    if (!r.watched) {
      // An idle kept-alive connection the upstream closed or wrote to: libcurl finds out when
      // it next uses it; until then it leaves the set, or it would be reported on every wait.
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      r.in_set = false;
      continue;
    }
    const std::uint32_t e = events[i].events;
    const int flags = (e & EPOLLIN ? CURL_CSELECT_IN : 0) | (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                      (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
    curl_multi_socket_action(multi_of(multi_), fd, flags, &running);
  }
  if (timer_due_ns_ >= 0 && ScenarioClock::steady_ns() >= timer_due_ns_) {
    timer_due_ns_ = -1;
    curl_multi_socket_action(multi_of(multi_), CURL_SOCKET_TIMEOUT, 0, &running);
  }
  finish_done();
  if (sweep_due_ns_ >= 0 && ScenarioClock::steady_ns() >= sweep_due_ns_) expire_waiting();
}

void CurlPool::expire_waiting() {
  const std::int64_t now_ns = ScenarioClock::steady_ns();
  for (UpstreamExchange* x : waiting_.expire(now_ns, config_.timeout_ns)) {
    x->fail(UpstreamFailure::kPoolBusy, pool_busy_detail(config_));
    events_.on_end(*x);
  }
  sweep_due_ns_ = waiting_.empty() ? -1 : now_ns + kSweepNs;
}

void CurlPool::serve_waiting() {
  while (active_.size() < config_.connections && !waiting_.empty()) launch(*waiting_.pop());
  if (waiting_.empty()) sweep_due_ns_ = -1;
}

void* CurlPool::take_handle() {
  if (!spare_.empty()) {
    void* h = spare_.back();
    spare_.pop_back();
    return h;
  }
  CURL* h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);  // the path as it came, dot segments and all
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &Callbacks::on_header);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &Callbacks::on_write);
  curl_easy_setopt(h, CURLOPT_READFUNCTION, &Callbacks::on_read);
  curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, &Callbacks::on_seek);
  curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, &Callbacks::on_prereq);
  const long timeout_s = static_cast<long>(config_.timeout_ns / 1'000'000'000);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_s * 1000);
  // Silent (under a byte a second) this long, before the answer or within it: timed out.
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, timeout_s);
  if (config_.url.scheme == "https") {
    if (!config_.cacert.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, config_.cacert.c_str());
    if (config_.insecure) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
  }
  return h;
}

void CurlPool::start(UpstreamExchange& x) {
  x.pool = this;
  if (active_.size() < config_.connections) return launch(x);
  const std::int64_t now_ns = ScenarioClock::steady_ns();
  waiting_.push_back(x, now_ns);
  if (sweep_due_ns_ < 0) sweep_due_ns_ = now_ns + kSweepNs;
}

void CurlPool::launch(UpstreamExchange& x) {
  CURL* h = easy_of(take_handle());
  x.handle = h;
  curl_slist* list = nullptr;
  for (const auto& header : x.headers) list = curl_slist_append(list, header.c_str());
  // Not libcurl's own defaults: no Accept the client did not send, and no Expect (the data
  // plane answered the client's, and the body is sent without waiting for the upstream's 100).
  if (!has_header(x.headers, "Accept")) list = curl_slist_append(list, "Accept:");
  list = curl_slist_append(list, "Expect:");
  x.header_list = list;
  const std::string url = base_ + x.target;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(h, CURLOPT_PRIVATE, &x);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
  curl_easy_setopt(h, CURLOPT_READDATA, &x);
  curl_easy_setopt(h, CURLOPT_SEEKDATA, &x);
  curl_easy_setopt(h, CURLOPT_PREREQDATA, &x);
  // A reused handle keeps the last request's method: each is set, or set back, here, in this
  // order (UPLOAD sets the method to PUT or GET, NOBODY then to HEAD).
  curl_easy_setopt(h, CURLOPT_UPLOAD, x.body_size ? 1L : 0L);
  curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE,
                   x.body_size ? static_cast<curl_off_t>(*x.body_size) : curl_off_t{-1});
  curl_easy_setopt(h, CURLOPT_NOBODY, x.method == "HEAD" ? 1L : 0L);
  const bool custom = x.method != "HEAD" && (x.method != "GET" || x.body_size);
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, custom ? x.method.c_str() : nullptr);
  active_.insert(&x);
  curl_multi_add_handle(multi_of(multi_), h);
}

void CurlPool::body_added(UpstreamExchange& x) {
  if (!x.handle || !x.reading_paused) return;
  x.reading_paused = false;
  curl_easy_pause(easy_of(x.handle), x.writing_paused ? CURLPAUSE_RECV : CURLPAUSE_CONT);
}

void CurlPool::answer_taken(UpstreamExchange& x, std::size_t n) {
  const std::size_t pending = x.take(n);
  if (!x.handle || !x.writing_paused || pending > kPauseBytes / 2) return;
  x.writing_paused = false;
  curl_easy_pause(easy_of(x.handle), x.reading_paused ? CURLPAUSE_SEND : CURLPAUSE_CONT);
}

void CurlPool::cancel(UpstreamExchange& x) {
  if (!x.handle) return waiting_.remove(x);
  detach(x);
  serve_waiting();
}

void CurlPool::fail_all(UpstreamFailure why) {
  std::vector<UpstreamExchange*> all(active_.begin(), active_.end());
  for (UpstreamExchange* x : all) detach(*x);
  for (UpstreamExchange* x : waiting_.take_all()) all.push_back(x);
  sweep_due_ns_ = -1;
  for (UpstreamExchange* x : all) {
    x->fail(why, "the provider is stopping");
    events_.on_end(*x);
  }
}

void CurlPool::finish_done() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_of(multi_), &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    UpstreamExchange* x = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &x);
    const CURLcode rc = msg->data.result;
    detach(*x);
    x->ended = true;
    x->failure = failure_of(rc);
    if (x->failure == UpstreamFailure::kNone && !x->head_done)
      x->failure = UpstreamFailure::kBroken;
    // An answer refused by on_header or on_prereq says why; libcurl only that it was refused.
    if (x->failure != UpstreamFailure::kNone && x->failure_detail.empty())
      x->failure_detail = curl_easy_strerror(rc);
    events_.on_end(*x);
  }
  serve_waiting();
}

void CurlPool::detach(UpstreamExchange& x) {
  CURL* h = easy_of(x.handle);
  curl_multi_remove_handle(multi_of(multi_), h);
  curl_slist_free_all(static_cast<curl_slist*>(x.header_list));
  x.header_list = nullptr;
  x.handle = nullptr;
  active_.erase(&x);
  if (spare_.size() >= kMaxSpareHandles) {
    curl_easy_cleanup(h);
    return;
  }
  spare_.push_back(h);
}

}  // namespace stampede
