#include "server/data_plane.hpp"

#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_set>

#include "duration.hpp"
#include "http_token.hpp"
#include "model/credential_key.hpp"
#include "model/request_framing.hpp"
#include "model/send_attribution.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// occ mode's row answers carry its version, so their bodies are built per answer.
std::string row_body(int status, std::uint64_t version) {
  const std::string v = std::to_string(version);
  switch (status) {
    case 200:
      return R"({"version":)" + v + "}";
    case 412:
      return R"({"type":"error","error":{"type":"precondition_failed","message":"The row changed since it was read; read it again"},"version":)" +
             v + "}";
    default:
      return R"({"type":"error","error":{"type":"precondition_required","message":"PUT /row needs If-Match with the version read"},"version":)" +
             v + "}";
  }
}

int connection_fd(MHD_Connection* c) {
  const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info ? info->connect_fd : -1;
}

// One pass over a request's headers fills in every rule's, repeats included: a lookup by
// name would see only the first of a repeated header.
struct SendHeaderReader {
  const SendRules& rules;
  SendHeaders headers;
};

MHD_Result offer_header(void* cls, MHD_ValueKind /*kind*/, const char* name, const char* value) {
  auto& reader = *static_cast<SendHeaderReader*>(cls);
  offer_send_header(reader.rules, reader.headers, name, value ? value : "");
  return MHD_YES;
}

MHD_Result offer_framing_header(void* cls, MHD_ValueKind /*kind*/, const char* name,
                                const char* value) {
  auto& framing = *static_cast<RequestFraming*>(cls);
  const std::string_view v = value ? value : "";
  if (ascii_iequals(name, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
    framing.transfer_encoding.push_back(v);
  } else if (ascii_iequals(name, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
    if (framing.content_length_fields++ == 0) framing.content_length = v;
  }
  return MHD_YES;
}

RequestFraming framing_of(MHD_Connection* c, const char* version) {
  RequestFraming framing;
  framing.http_1_0 = version && std::string_view(version) == MHD_HTTP_VERSION_1_0;
  MHD_get_connection_values(c, MHD_HEADER_KIND, &offer_framing_header, &framing);
  return framing;
}

// Queued on the handler's first call, before any body is read: libmicrohttpd then reads no
// more of this connection and closes it once the answer is out.
bool queue_framing_refusal(MHD_Connection* c, const FramingVerdict& verdict) {
  const nlohmann::ordered_json body{{"type", "error"},
                                    {"error",
                                     {{"type", "invalid_request_error"},
                                      {"reason", "request_framing"},
                                      {"message", std::string(verdict.reason)}}}};
  std::string text = body.dump();
  MHD_Response* r =
      MHD_create_response_from_buffer(text.size(), text.data(), MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  const bool queued = MHD_queue_response(c, static_cast<unsigned>(verdict.status), r) == MHD_YES;
  MHD_destroy_response(r);
  return queued;
}

std::int64_t epoch_s_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr std::int64_t kRefusalLogPeriodNs = 10 * kNsPerSec;

// The most of a body kept to read provider.token_field from.
constexpr std::size_t kMaxTokenBody = 1 << 20;

// How often a loop looks for requests whose headers are overdue: a few times per timeout, so
// none is cut much later than its due time, and at most once a second.
std::int64_t sweep_period_ns(std::int64_t header_timeout_ns) {
  if (header_timeout_ns <= 0) return kNsPerSec;
  return std::clamp<std::int64_t>(header_timeout_ns / 4, 10 * kNsPerMs, kNsPerSec);
}

}  // namespace

// What an answer's bytes depend on, besides the Date header libmicrohttpd adds when sending.
struct DataPlane::AnswerKey {
  AnswerFacts facts;                         // what the dialect writes
  std::optional<std::uint64_t> row_version;  // occ mode's row answers: the ETag, the body's version
  bool operator==(const AnswerKey&) const = default;
};

namespace {

// The last answer built on this server thread. A storm's answers repeat (the same 429 until
// the window turns) and one libmicrohttpd response can be queued on any number of
// connections, so most answers cost no allocation at all.
struct AnswerCache {
  const DataPlane* owner = nullptr;
  DataPlane::AnswerKey key;
  MHD_Response* response = nullptr;
  int status = 0;  // on the wire: the dialect's
  ~AnswerCache() {
    if (response) MHD_destroy_response(response);
  }
};
thread_local AnswerCache answer_cache;

// This thread's number among the data plane's loops: its recorder in the provider.
thread_local std::size_t loop_index = 0;

}  // namespace

struct DataPlane::Loop {
  struct Handed {
    int fd;
    sockaddr_storage addr;
    socklen_t addr_len;
  };
  // One per open connection, from libmicrohttpd's start to its close of it; touched only on the
  // loop's thread (and at the daemon's stop, after that thread is gone).
  struct Conn {
    int fd = -1;
    bool in_request = false;         // its headers are complete; not yet answered
    bool cut = false;                // closed for a slow request; libmicrohttpd has yet to notice
    std::int64_t body_since_ns = 0;  // in_request, body still coming in: its first byte's time
  };
  MHD_Daemon* daemon = nullptr;
  std::unordered_set<Conn*> conns;
  std::int64_t next_sweep_ns = 0;
  int epoll_fd = -1;
  int wake_fd = -1;  // an eventfd: the loop rereads its flags and hand-offs when it is written
  std::atomic<bool> quiesce{false};
  std::atomic<bool> quiesced{false};  // the loop has seen quiesce: it no longer accepts
  std::atomic<bool> stop{false};
  std::mutex handed_mu;
  std::vector<Handed> handed;  // accepted by another loop for this one's daemon
  std::thread thread;
  ~Loop() {
    for (const auto& h : handed) close(h.fd);
    for (Conn* c : conns) delete c;
    if (wake_fd >= 0) close(wake_fd);
  }
};

// A request held a network hop before it is decided (provider.hop_delay): what the decision
// needs, copied, since it is made on the timer's thread, when the hop is over.
struct DataPlane::Held {
  std::size_t loop = 0;  // the recorder of the thread that read it
  std::int64_t arrives_steady_ns = 0;
  std::string tenant;
  std::string client_id;
  SendClaim send;
  RowOp row_op = RowOp::kNone;
  std::optional<std::string> if_match;
  DeclaredTokens tokens;
};

struct DataPlane::Request {
  Decision decision;
  std::optional<std::uint64_t> row_version;
  std::int64_t due_steady_ns = 0;  // when the service time is over
  bool served = false;             // the service time has passed
  // With provider.token_field the decision waits for the body, which holds the tokens; the
  // arrival is still when the headers came in.
  bool decided = true;
  std::int64_t seen_steady_ns = 0;
  std::string body;
  std::unique_ptr<Held> held;  // not decided yet: still on its way in
};

// libmicrohttpd calls the access handler several times per request: once when the headers
// are complete, once per piece of body, and once more at the end. The arrival is the first
// call; the answer goes on the last, because answering on the first makes 0.9.75 close the
// connection of any request that has a body.
struct MhdCallbacks {
  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                               const char* version, const char* upload_data,
                               std::size_t* upload_size, void** con_cls) {
    auto* self = static_cast<DataPlane*>(cls);
    if (*con_cls == nullptr) return on_headers(*self, c, url, method, version, con_cls);
    auto& r = *static_cast<DataPlane::Request*>(*con_cls);
    if (*upload_size != 0) {
      // Kept only while a token field is to be read from it, and only up to the limit: a
      // longer body is not read (and its count is malformed).
      if (!r.decided && r.body.size() <= kMaxTokenBody)
        r.body.append(upload_data, std::min(*upload_size, kMaxTokenBody + 1 - r.body.size()));
      *upload_size = 0;  // otherwise the body is read and dropped
      return MHD_YES;
    }
    if (auto* conn = conn_of(c)) conn->body_since_ns = 0;  // the whole body is in
    if (!r.decided) self->decide(c, url, method, r);
    return self->answer(c, r) ? MHD_YES : MHD_NO;
  }

  // The headers are complete. A request whose body's end cannot be found is answered now and
  // its connection closed, uncounted: it never reaches the provider model. Any other arrives.
  static MHD_Result on_headers(DataPlane& self, MHD_Connection* c, const char* url,
                               const char* method, const char* version, void** con_cls) {
    auto* conn = conn_of(c);
    if (conn) conn->in_request = true;
    const FramingVerdict framing = check_framing(framing_of(c, version));
    if (framing.status != 0) {
      const std::int64_t now_ns = ScenarioClock::steady_ns();
      self.refusals_.note(ConnectionRefusals::Kind::kBadFraming, now_ns);
      if (self.stamper_) self.stamper_->answered(connection_fd(c), now_ns);
      return queue_framing_refusal(c, framing) ? MHD_YES : MHD_NO;
    }
    auto* r = self.arrive(c, url, method);
    if (conn) conn->body_since_ns = r->seen_steady_ns;
    *con_cls = r;
    return MHD_YES;
  }

  static void on_completed(void* cls, MHD_Connection* c, void** con_cls,
                           MHD_RequestTerminationCode /*toe*/) {
    if (auto* conn = conn_of(c)) conn->in_request = false;
    static_cast<DataPlane*>(cls)->complete(static_cast<DataPlane::Request*>(*con_cls));
    *con_cls = nullptr;
  }

  static void on_connection(void* cls, MHD_Connection* c, void** socket_context,
                            MHD_ConnectionNotificationCode code) {
    DataPlane::Loop& loop = *static_cast<DataPlane*>(cls)->loop_of(c);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      auto* conn = new DataPlane::Loop::Conn{connection_fd(c)};
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

  static DataPlane::Loop::Conn* conn_of(MHD_Connection* c) {
    const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? static_cast<DataPlane::Loop::Conn*>(info->socket_context) : nullptr;
  }
};

DataPlane::DataPlane(const DataPlaneConfig& config, LockedProvider& provider)
    : config_(config),
      provider_(provider),
      format_(make_answer_format(provider.config())),
      refusals_(std::cerr, kRefusalLogPeriodNs) {}

DataPlane::~DataPlane() {
  stop(0);
}

std::optional<std::string> DataPlane::start() {
  const auto sock = open_listen_socket(config_.listen, config_.backlog);
  if (!sock) return "--listen: " + sock.error();
  listen_fd_ = sock->fd;
  port_ = sock->port;
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (config_.watch_arrivals) {
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    stamper_ = std::make_unique<ArrivalStamper>(static_cast<int>(files.rlim_cur));
  }
  // The limit is the process's (open_connections_, counted at accept); each daemon may hold
  // all of it, so none refuses a connection the process has room for.
  const unsigned per_loop = std::max(1u, config_.max_connections);
  for (unsigned i = 0; i < config_.threads; ++i) {
    auto loop = std::make_unique<Loop>();
    loop->daemon = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET, 0, nullptr, nullptr,
        &MhdCallbacks::on_request, this, MHD_OPTION_CONNECTION_LIMIT, per_loop,
        MHD_OPTION_CONNECTION_TIMEOUT, config_.idle_timeout_s, MHD_OPTION_NOTIFY_COMPLETED,
        &MhdCallbacks::on_completed, this, MHD_OPTION_NOTIFY_CONNECTION,
        &MhdCallbacks::on_connection, this,
        // Strict parsing: a request line with a NUL in it, or HTTP/1.1 without Host, gets a
        // 400 instead of being read as a shorter request.
        MHD_OPTION_STRICT_FOR_CLIENT, 1,
        // Each connection's memory pool is zeroed between requests: the 32 KiB default made
        // that memset the largest cost of a keep-alive request.
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, config_.memory_per_connection, MHD_OPTION_END);
    if (!loop->daemon) {
      stop(0);
      return "--listen: libmicrohttpd could not start on " + config_.listen.url(port_);
    }
    loop->epoll_fd = MHD_get_daemon_info(loop->daemon, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd;
    loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    loops_.push_back(std::move(loop));
  }
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    loops_[i]->thread = std::thread([this, i] {
      loop_index = i;
      run(*loops_[i]);
    });
  }
  return std::nullopt;
}

void DataPlane::run(Loop& loop) {
  const std::int64_t sweep_ns = sweep_period_ns(config_.header_timeout_ns);
  while (!loop.stop.load()) {
    // Zero when libmicrohttpd holds connections it has yet to serve.
    MHD_UNSIGNED_LONG_LONG timeout_ms = 0;
    const auto until_sweep_ms = static_cast<MHD_UNSIGNED_LONG_LONG>(
        std::max<std::int64_t>(0, loop.next_sweep_ns - ScenarioClock::steady_ns()) / kNsPerMs + 1);
    const int wait_ms = static_cast<int>(
        std::min(MHD_get_timeout(loop.daemon, &timeout_ms) == MHD_YES ? timeout_ms : until_sweep_ms,
                 until_sweep_ms));
    const bool accepting = !loop.quiesce.load();
    if (!accepting) loop.quiesced.store(true);
    pollfd fds[3] = {
        {loop.epoll_fd, POLLIN, 0}, {loop.wake_fd, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    poll(fds, accepting ? 3 : 2, wait_ms);
    if (fds[1].revents & POLLIN) {
      eventfd_t ignored;
      eventfd_read(loop.wake_fd, &ignored);
      add_handed_connections(loop);
    }
    if (accepting && (fds[2].revents & POLLIN)) accept_connections(loop);
    MHD_run(loop.daemon);
    // After serving: headers that came in are read before any connection is judged slow.
    const std::int64_t now_ns = ScenarioClock::steady_ns();
    if (now_ns >= loop.next_sweep_ns) {
      cut_slow_requests(loop, now_ns);
      refusals_.flush(now_ns);
      loop.next_sweep_ns = now_ns + sweep_ns;
    }
  }
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

RowRequest DataPlane::row_request(MHD_Connection* c, std::string_view url,
                                  std::string_view method) const {
  RowRequest row;
  if (provider_.config().mode != ProviderMode::kOcc || url != "/row") return row;
  row.op = method == "GET" ? RowOp::kRead : method == "PUT" ? RowOp::kWrite : RowOp::kNone;
  if (const char* m = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-Match")) row.if_match = m;
  return row;
}

DeclaredTokens DataPlane::declared_tokens(MHD_Connection* c, std::string_view body) const {
  // Without a token quota the header means nothing, and is not looked at.
  const ProviderConfig& p = provider_.config();
  if (!p.token_allowance && !p.spend_cap) return {};
  // The header first; then the body's field, when there is one to read.
  const char* header = MHD_lookup_connection_value(c, MHD_HEADER_KIND, p.token_header.c_str());
  if (header || p.token_field.empty()) return parse_declared_tokens(header);
  if (body.size() > kMaxTokenBody) return {std::nullopt, true};
  return declared_tokens_in_body(body, p.token_field);
}

DataPlane::Request* DataPlane::arrive(MHD_Connection* c, const char* url, const char* method) {
  // Not seen yet by the stamper: now, the latest the bytes can have come in.
  const std::int64_t seen_ns = stamper_ ? stamper_->take(connection_fd(c)) : 0;
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  auto* r = new Request;
  r->seen_steady_ns = seen_ns > 0 ? seen_ns : ScenarioClock::steady_ns();
  r->decided = false;
  if (provider_.config().token_field.empty()) decide(c, url, method, *r);
  return r;
}

void DataPlane::decide(MHD_Connection* c, const char* url, const char* method, Request& r) {
  const std::string& tenant_header = provider_.config().tenant_header;
  const char* tenant_value = MHD_lookup_connection_value(c, MHD_HEADER_KIND, tenant_header.c_str());
  const std::string_view tenant = tenant_value ? credential_key(tenant_header, tenant_value) : "";
  SendHeaderReader sends{provider_.send_rules(), {}};
  MHD_get_connection_values(c, MHD_HEADER_KIND, &offer_header, &sends);
  const SendClaim send = claim_send(sends.headers);
  const std::string_view client_id = sends.headers.client.value;
  const RowRequest row = row_request(c, url, method);
  const DeclaredTokens tokens = declared_tokens(c, r.body);
  r.decided = true;
  r.body = std::string();
  if (provider_.config().hop_delay) {
    r.held = std::make_unique<Held>(
        Held{loop_index,
             saturating_add(r.seen_steady_ns, provider_.clock().wall_ns(provider_.draw_hop_ns())),
             std::string(tenant), std::string(client_id), send, row.op,
             row.if_match ? std::optional<std::string>(*row.if_match) : std::nullopt, tokens});
    return;
  }
  const auto admission =
      provider_.admit(loop_index, r.seen_steady_ns, tenant, send, client_id, row, tokens);
  r.decision = admission.decision;
  r.row_version = admission.row_version;
  if (r.decision.service_ns > 0) {
    r.due_steady_ns = saturating_add(ScenarioClock::steady_ns(),
                                     provider_.clock().wall_ns(r.decision.service_ns));
  }
}

bool DataPlane::answer(MHD_Connection* c, Request& r) {
  if (r.held) {
    MHD_suspend_connection(c);
    suspended_.fetch_add(1, std::memory_order_relaxed);
    Loop* loop = loop_of(c);
    timer_.schedule(r.held->arrives_steady_ns, [this, c, &r, loop] { decide_held(c, r, loop); });
    return true;
  }
  const Decision& d = r.decision;
  if (d.reset_connection) {
    // Linger 0: the close sends a reset, as a provider's dropped connection does.
    const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info) {
      const linger lg{1, 0};
      setsockopt(info->connect_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    return false;
  }
  if (d.service_ns > 0 && !r.served) {
    // The service time passes on the timer's thread, not on one of the server's few.
    r.served = true;
    MHD_suspend_connection(c);
    suspended_.fetch_add(1, std::memory_order_relaxed);
    resume_at(r.due_steady_ns, c, loop_of(c));
    return true;
  }
  AnswerKey key;
  key.facts = answer_facts(
      d, format_, d.has_quota ? quota_key({d.limit, d.remaining, d.reset_ns}) : QuotaFacts{},
      d.tokens ? quota_key(*d.tokens) : QuotaFacts{});
  key.row_version = r.row_version;
  AnswerCache& cache = answer_cache;
  if (cache.owner != this || !cache.response || !(cache.key == key)) {
    if (cache.response) MHD_destroy_response(cache.response);
    cache.owner = this;
    cache.key = key;
    cache.response = build_response(key, cache.status);
  }
  // Bytes that came in before this answer (a body) are not the next request's arrival.
  if (stamper_) stamper_->answered(connection_fd(c), ScenarioClock::steady_ns());
  return MHD_queue_response(c, static_cast<unsigned>(cache.status), cache.response) == MHD_YES;
}

QuotaFacts DataPlane::quota_key(const QuotaNumbers& q) const {
  const RateLimitHeaders set = format_.ratelimit_headers;
  // The wall clock only for the header set that sends a time of day.
  if (!needs_wall_clock(set)) return quota_facts(q, set, 0, 0);
  return quota_facts(q, set, provider_.clock().wall_ns(q.reset_ns), epoch_s_now());
}

void DataPlane::resume_at(std::int64_t due_steady_ns, MHD_Connection* c, Loop* loop) {
  timer_.schedule(due_steady_ns, [this, c, loop] {
    MHD_resume_connection(c);
    // A daemon driven from outside notices a resumption only when it next runs.
    eventfd_write(loop->wake_fd, 1);
    suspended_.fetch_sub(1, std::memory_order_relaxed);
  });
}

void DataPlane::decide_held(MHD_Connection* c, Request& r, Loop* loop) {
  // The connection is suspended: its loop does not touch r until the resumption.
  const Held& h = *r.held;
  const RowRequest row{h.row_op,
                       h.if_match ? std::optional<std::string_view>(*h.if_match) : std::nullopt};
  // Decided at its arrival, a hop after it was sent: the timer runs the callbacks it holds in
  // deadline order, so the row sees the writes in that order however late this thread runs.
  const auto a =
      provider_.admit(h.loop, h.arrives_steady_ns, h.tenant, h.send, h.client_id, row, h.tokens);
  r.decision = a.decision;
  r.row_version = a.row_version;
  r.served = true;  // the service time and the hop back, together
  const std::int64_t back_ns =
      provider_.clock().wall_ns(saturating_add(a.decision.service_ns, provider_.draw_hop_ns()));
  const std::int64_t due_ns = saturating_add(h.arrives_steady_ns, back_ns);
  r.held.reset();
  resume_at(due_ns, c, loop);
}

MHD_Response* DataPlane::build_response(const AnswerKey& key, int& status) const {
  RenderedAnswer a = render_answer(format_, key.facts);
  if (key.row_version) a.body = row_body(key.facts.status, *key.row_version);
  status = a.status;
  MHD_Response* response =
      MHD_create_response_from_buffer(a.body.size(), a.body.data(), MHD_RESPMEM_MUST_COPY);
  if (key.row_version) {
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, format_etag(*key.row_version).c_str());
  }
  for (const auto& [name, value] : a.headers)
    MHD_add_response_header(response, name.c_str(), value.c_str());
  return response;
}

void DataPlane::complete(Request* r) {
  if (!r) return;
  delete r;
  in_flight_.fetch_sub(1, std::memory_order_relaxed);
}

void DataPlane::stop(std::int64_t max_wait_ns) {
  if (listen_fd_ < 0) return;
  signal_loops(&Loop::quiesce);
  // Once no loop can touch it, close the listen socket: new connections are refused now, not
  // left waiting in its backlog.
  for (auto& loop : loops_) {
    while (loop->thread.joinable() && !loop->quiesced.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  close(listen_fd_);
  const auto poll_until = [this](std::int64_t until_ns) {
    while (in_flight_.load() > 0 && ScenarioClock::steady_ns() < until_ns) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  poll_until(ScenarioClock::steady_ns() + max_wait_ns);
  // libmicrohttpd must not be stopped with a connection suspended.
  timer_.fire_all();
  while (suspended_.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  poll_until(ScenarioClock::steady_ns() + kNsPerSec);
  signal_loops(&Loop::stop);
  for (auto& loop : loops_) {
    if (loop->thread.joinable()) loop->thread.join();
    MHD_stop_daemon(loop->daemon);
  }
  loops_.clear();
  listen_fd_ = -1;
  if (spare_fd_ >= 0) close(spare_fd_);
  spare_fd_ = -1;
  refusals_.flush(ScenarioClock::steady_ns(), /*at_end=*/true);
}

}  // namespace stampede
