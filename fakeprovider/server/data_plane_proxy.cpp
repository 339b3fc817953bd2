// Proxy mode on libmicrohttpd: a forwarded request's connection waits, suspended, for the
// upstream's answer, which libmicrohttpd then reads a piece at a time as it arrives
// (data_plane_forward.cpp holds the forward itself). Everything here runs on the request's loop
// thread.
#include <algorithm>
#include <cstring>

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
  return info ? address_text(info->client_addr) : "";
}

MHD_Result collect_field(void* cls, MHD_ValueKind /*kind*/, const char* name, const char* value) {
  static_cast<std::vector<HeaderField>*>(cls)->emplace_back(name, value ? value : "");
  return MHD_YES;
}

// What a request's head takes of libmicrohttpd's connection memory: its bytes, and a record of
// about 56 bytes for each field.
constexpr std::size_t kBytesPerRequestField = 64;

std::size_t request_head_bytes(std::string_view method, std::string_view target,
                               const std::vector<HeaderField>& fields) {
  std::size_t request = method.size() + target.size() + 13;  // " ", " HTTP/1.1\r\n", "\r\n"
  for (const auto& [name, value] : fields)
    request += name.size() + value.size() + 4 + kBytesPerRequestField;
  return request;
}

bool bodiless(int status) {
  return status < 200 || status == 204 || status == 304;
}

}  // namespace

bool DataPlane::refuse_long_body(MHD_Connection* c, const RequestFraming& framing) {
  const auto message = too_long_declared(framing);
  if (!message) return false;
  if (stamper_) stamper_->answered(connection_fd(c));
  queue_server_error(c, 413, "request_too_large", "body_too_long", *message, /*close=*/true);
  return true;
}

bool DataPlane::refuse_long_chunked(MHD_Connection* c) {
  if (stamper_) stamper_->answered(connection_fd(c));
  // Read whole by now: the connection's next request can be found.
  return queue_server_error(c, 413, "request_too_large", "body_too_long",
                            too_long_message("the chunked body is longer than"), /*close=*/false);
}

void DataPlane::prepare_forward(MHD_Connection* c, const char* method,
                                const RequestFraming& framing, Request& r) {
  const Loop::Conn* conn = MhdCallbacks::conn_of(c);
  const std::string_view target = conn ? std::string_view(conn->target) : "/";
  std::vector<HeaderField> fields;
  MHD_get_connection_values(c, MHD_HEADER_KIND, &collect_field, &fields);
  const std::string peer = peer_address(c);
  const std::size_t head_bytes = request_head_bytes(method, target, fields);
  prepare_forward(ForwardFacts{method, target, std::move(fields), peer, framing, head_bytes}, r);
  if (r.proxied) r.proxied->connection = c;
}

bool DataPlane::answer_forwarded(MHD_Connection* c, Request& r) {
  Proxied& p = *r.proxied;
  send_forward(r);
  if (!p.head_done && !p.ended) {
    suspend_for_upstream(p);
    return true;
  }
  if (stamper_) stamper_->answered(connection_fd(c));
  if (!p.head_done) {
    return queue_server_error(c, failure_status(p.failure), "upstream_error", to_string(p.failure),
                              failure_message(p), /*close=*/false);
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
  for (const auto& [name, value] : relayed_fields(p))
    MHD_add_response_header(response, name.c_str(), value.c_str());
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
