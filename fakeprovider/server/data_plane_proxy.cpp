// Proxy mode: a request the provider admits goes on to the upstream (UpstreamPool, one per
// loop), its body as it comes in; its connection waits, suspended, for the upstream's answer,
// which is passed on a piece at a time as it arrives. What the upstream answered is recorded
// beside the arrival. Everything here runs on the request's loop thread.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstring>

#include "http_token.hpp"
#include "recording/arrival_log.hpp"
#include "server/answer_writer.hpp"
#include "server/data_plane_internals.hpp"
#include "upstream/forward_headers.hpp"

namespace stampede {
namespace {

// The most libmicrohttpd asks of an answer's body at a time.
constexpr std::size_t kAnswerBlockBytes = 16 * 1024;

std::string peer_address(MHD_Connection* c) {
  const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  char text[INET6_ADDRSTRLEN] = "";
  if (!info || !info->client_addr) return text;
  const sockaddr* sa = info->client_addr;
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  return text;
}

MHD_Result collect_field(void* cls, MHD_ValueKind /*kind*/, const char* name, const char* value) {
  static_cast<std::vector<HeaderField>*>(cls)->emplace_back(name, value ? value : "");
  return MHD_YES;
}

// What the provider lets through to the upstream: every layer passed.
bool admitted(const Decision& d) {
  return d.status == 200 && d.reason == DecisionReason::kServed && !d.reset_connection;
}

// libmicrohttpd writes an answer's head into the connection's memory, which still holds the
// request's head: its bytes, and a record of about 56 bytes for each field. An upstream head
// longer than what is left would close the client's connection without a byte; held to it
// as it is read, it is a 502. The spare kilobyte is for what libmicrohttpd adds to the head
// (Date, the length, its own reason phrase).
constexpr std::size_t kBytesPerRequestField = 64;
constexpr std::size_t kAnswerHeadSpare = 1024;

std::size_t answer_head_room(std::size_t memory, std::string_view method, std::string_view target,
                             const std::vector<HeaderField>& fields) {
  std::size_t request = method.size() + target.size() + 13;  // " ", " HTTP/1.1\r\n", "\r\n"
  for (const auto& [name, value] : fields)
    request += name.size() + value.size() + 4 + kBytesPerRequestField;
  return memory > request + kAnswerHeadSpare ? memory - request - kAnswerHeadSpare : 0;
}

bool bodiless(int status) {
  return status < 200 || status == 204 || status == 304;
}

// The answer to a forward that got no head: the upstream's silence is 504, the pool's
// connections all busy past the timeout 503 (the provider's own limit), anything else 502.
int failure_status(UpstreamFailure f) {
  if (f == UpstreamFailure::kTimedOut) return 504;
  if (f == UpstreamFailure::kPoolBusy) return 503;
  return 502;
}

std::string failure_words(UpstreamFailure f) {
  if (f == UpstreamFailure::kTimedOut) return " was silent for --upstream-timeout";
  if (f == UpstreamFailure::kPoolBusy) return " was not asked: no connection to it came free";
  return " gave no answer";
}

}  // namespace

// One count per forward, once its answer is over: an answer cut short is the upstream's
// failure whatever its head said, and a head the client stopped reading is what it answered.
void DataPlane::note_forward_end(Proxied& p) {
  if (p.failure == UpstreamFailure::kNone || p.failure == UpstreamFailure::kStopped) {
    // The provider's own stop is not the upstream's failure.
    if (p.head_done) provider_.note_upstream(p.ticket, p.status);
    return;
  }
  provider_.note_upstream(
      p.ticket, p.failure == UpstreamFailure::kTimedOut ? kUpstreamTimedOut : kUpstreamFailed);
}

void DataPlane::ProxyEvents::on_head(UpstreamExchange& x) {
  plane.resume_from_upstream(static_cast<Proxied&>(x));
}

void DataPlane::ProxyEvents::on_body(UpstreamExchange& x) {
  plane.resume_from_upstream(static_cast<Proxied&>(x));
}

void DataPlane::ProxyEvents::on_end(UpstreamExchange& x) {
  auto& p = static_cast<Proxied&>(x);
  plane.note_forward_end(p);
  plane.resume_from_upstream(p);
}

bool DataPlane::refuse_long_body(MHD_Connection* c, const RequestFraming& framing) {
  const auto length = declared_length(framing);
  if (!length || *length <= config_.upstream->max_body) return false;
  refuse_too_long(c, "the body is " + std::to_string(*length) + " bytes, more than",
                  /*close=*/true);
  return true;
}

bool DataPlane::refuse_long_chunked(MHD_Connection* c) {
  // Read whole by now: the connection's next request can be found.
  return refuse_too_long(c, "the chunked body is longer than", /*close=*/false);
}

bool DataPlane::refuse_too_long(MHD_Connection* c, const std::string& what, bool close) {
  refusals_.note(ConnectionRefusals::Kind::kBodyTooLong, ScenarioClock::steady_ns());
  if (stamper_) stamper_->answered(connection_fd(c));
  return queue_server_error(c, 413, "request_too_large", "body_too_long",
                            what + " this provider forwards: at most " +
                                std::to_string(config_.upstream->max_body) + " bytes (--max-body)",
                            close);
}

void DataPlane::prepare_forward(MHD_Connection* c, const char* method,
                                const RequestFraming& framing, Request& r) {
  // Refused at its headers: answered here, nothing to prepare.
  if (r.decided && !r.held && !admitted(r.decision)) return;
  auto p = std::make_unique<Proxied>();
  p->plane = this;
  p->connection = c;
  p->method = method;
  const Loop::Conn* conn = MhdCallbacks::conn_of(c);
  p->target = origin_form(conn ? conn->target : "/");
  std::vector<HeaderField> fields;
  MHD_get_connection_values(c, MHD_HEADER_KIND, &collect_field, &fields);
  const std::string peer = peer_address(c);
  p->headers = upstream_request_headers(fields, config_.upstream->strip_headers, {peer, "http"});
  p->max_answer_head =
      answer_head_room(config_.memory_per_connection, method, conn ? conn->target : "/", fields);
  p->body_size = declared_length(framing);
  p->chunked = !framing.transfer_encoding.empty();
  r.proxied = std::move(p);
  // Admitted at its headers, with a body of known length or none: sent now, the body after it
  // as it comes.
  if (r.decided && !r.held && forwards(r) && !r.proxied->chunked) start_forward(r);
}

void DataPlane::take_body(Request& r, const char* data, std::size_t size) {
  Proxied& p = *r.proxied;
  if (p.body.size() + size > config_.upstream->max_body) {
    p.too_long = true;  // only a chunked body can: a declared length was checked
    return;
  }
  p.body.append(data, size);
  if (p.started) p.pool->body_added(p);
}

bool DataPlane::forwards(const Request& r) const {
  return r.proxied && admitted(r.decision);
}

void DataPlane::start_forward(Request& r) {
  r.proxied->ticket = r.ticket;
  r.proxied->started = true;
  loops_[loop_index]->upstream->start(*r.proxied);
}

bool DataPlane::answer_forwarded(MHD_Connection* c, Request& r) {
  Proxied& p = *r.proxied;
  if (!p.started) {
    // Decided after its headers (a token field, a hop, the store), or a chunked body: the
    // body is whole by now, and within --max-body.
    if (p.chunked) p.body_size = p.body.size();
    start_forward(r);
  }
  if (!p.head_done && !p.ended) {
    suspend_for_upstream(p);
    return true;
  }
  if (stamper_) stamper_->answered(connection_fd(c));
  if (!p.head_done) {
    return queue_server_error(c, failure_status(p.failure), "upstream_error", to_string(p.failure),
                              "the upstream " + config_.upstream->url.base() +
                                  failure_words(p.failure) + ": " + p.failure_detail,
                              /*close=*/false);
  }
  return queue_forwarded(c, p);
}

MHD_Response* DataPlane::forwarded_response(Proxied& p) {
  if (bodiless(p.status) && p.method != "HEAD") {
    MHD_Response* none = MHD_create_response_from_buffer(0, nullptr, MHD_RESPMEM_PERSISTENT);
    // A 304's length is the representation's it stands for (RFC 9110 8.6), not its own body's:
    // the upstream's, as it came, where libmicrohttpd would write its own 0.
    if (p.status == 304 && p.answer_size) {
      MHD_set_response_options(none, MHD_RF_INSANITY_HEADER_CONTENT_LENGTH, MHD_RO_END);
      MHD_add_response_header(none, MHD_HTTP_HEADER_CONTENT_LENGTH,
                              std::to_string(*p.answer_size).c_str());
    }
    return none;
  }
  // The whole answer is in (most are, a small one in one read): copied, with its length.
  if (p.ended && p.failure == UpstreamFailure::kNone && p.method != "HEAD") {
    const std::string_view body = p.answer_pending();
    return MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()),
                                           MHD_RESPMEM_MUST_COPY);
  }
  // Still coming: passed on as it arrives, a block at a time, no larger than the body.
  const std::size_t block =
      std::clamp<std::size_t>(p.answer_size.value_or(kAnswerBlockBytes), 1024, kAnswerBlockBytes);
  return MHD_create_response_from_callback(p.answer_size.value_or(MHD_SIZE_UNKNOWN), block,
                                           &MhdCallbacks::read_answer, &p, nullptr);
}

bool DataPlane::queue_forwarded(MHD_Connection* c, Proxied& p) {
  MHD_Response* response = forwarded_response(p);
  std::vector<std::string> named;
  for (const auto& [name, value] : p.answer_headers) {
    if (ascii_iequals(name, "connection"))
      for (auto& n : connection_field_names(value)) named.push_back(std::move(n));
  }
  for (const auto& [name, value] : p.answer_headers) {
    if (passes_back(name, named)) MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  const bool queued = MHD_queue_response(c, static_cast<unsigned>(p.status), response) == MHD_YES;
  MHD_destroy_response(response);
  return queued;
}

// libmicrohttpd asks for the next piece of a forwarded answer: what has come, the end, or (none
// yet) a wait with the connection suspended until the pool has more.
ssize_t MhdCallbacks::read_answer(void* cls, std::uint64_t /*pos*/, char* buf, std::size_t max) {
  auto& p = *static_cast<DataPlane::Proxied*>(cls);
  const std::string_view pending = p.answer_pending();
  if (!pending.empty()) {
    const std::size_t n = std::min(max, pending.size());
    std::memcpy(buf, pending.data(), n);
    p.pool->answer_taken(p, n);
    return static_cast<ssize_t>(n);
  }
  if (p.ended) {
    return p.failure == UpstreamFailure::kNone ? MHD_CONTENT_READER_END_OF_STREAM
                                               : MHD_CONTENT_READER_END_WITH_ERROR;
  }
  p.plane->suspend_for_upstream(p);
  return 0;
}

void DataPlane::suspend_for_upstream(Proxied& p) {
  MHD_suspend_connection(p.connection);
  p.suspended = true;
  suspended_.fetch_add(1, std::memory_order_relaxed);
}

void DataPlane::resume_from_upstream(Proxied& p) {
  if (!p.suspended) return;
  p.suspended = false;
  MHD_resume_connection(p.connection);
  suspended_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace stampede
