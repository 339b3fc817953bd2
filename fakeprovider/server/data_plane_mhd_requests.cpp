// libmicrohttpd's side of a request's life: its callbacks (the headers, the body's pieces, the
// end), and its connection suspended while a hop or a service time passes on the timer's
// thread. Goes with libmicrohttpd; the life itself is data_plane_requests.cpp's.
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <string_view>

#include "server/data_plane_internals.hpp"
#include "server/request_headers.hpp"

namespace stampede {

// libmicrohttpd calls the access handler several times per request: once when the headers
// are complete, once per piece of body, and once more at the end. The arrival is the first
// call; the answer goes on the last, because answering on the first makes 0.9.75 close the
// connection of any request that has a body.
MHD_Result MhdCallbacks::on_request(void* cls, MHD_Connection* c, const char* url,
                                    const char* method, const char* version,
                                    const char* upload_data, std::size_t* upload_size,
                                    void** con_cls) {
  auto* self = static_cast<DataPlane*>(cls);
  if (*con_cls == nullptr) return on_headers(*self, c, url, method, version, con_cls);
  auto& r = *static_cast<DataPlane::Request*>(*con_cls);
  if (*upload_size != 0) {
    self->take_body(r, std::string_view(upload_data, *upload_size));
    *upload_size = 0;  // otherwise the body is read and dropped
    return MHD_YES;
  }
  if (auto* conn = conn_of(c)) conn->body_since_ns = 0;  // the whole body is in
  if (r.proxied && r.proxied->too_long) return self->refuse_long_chunked(c) ? MHD_YES : MHD_NO;
  if (!r.decided) self->decide(c, url, method, r);
  return self->answer(c, r) ? MHD_YES : MHD_NO;
}

void* MhdCallbacks::on_uri(void* /*cls*/, const char* uri, MHD_Connection* c) {
  // Null only for a request line without a target, which libmicrohttpd refuses before this.
  if (auto* conn = conn_of(c)) conn->target = uri ? uri : "";
  return nullptr;  // the request's own state starts at its headers (on_headers)
}

// The headers are complete. A request whose head or framing another reader could take
// otherwise (an upstream, a proxy in front) is answered now and its connection closed,
// uncounted: it never reaches the provider model. Any other arrives.
MHD_Result MhdCallbacks::on_headers(DataPlane& self, MHD_Connection* c, const char* url,
                                    const char* method, const char* version, void** con_cls) {
  auto* conn = conn_of(c);
  if (conn) conn->in_request = true;
  const HeadVerdict head =
      check_head(c, method, version, conn ? std::string_view(conn->target) : url,
                 self.provider_.config().tenant_header);
  if (head.state == HeadVerdict::State::kBad) {
    if (self.stamper_) self.stamper_->answered(connection_fd(c));
    return queue_server_error(c, head.status, "invalid_request_error", "request_head", head.reason,
                              /*close=*/true)
               ? MHD_YES
               : MHD_NO;
  }
  const RequestFraming framing_fields = framing_of(c, version);
  const FramingVerdict framing = check_framing(framing_fields);
  if (framing.status != 0) {
    self.refusals_.note(ConnectionRefusals::Kind::kBadFraming, ScenarioClock::steady_ns());
    if (self.stamper_) self.stamper_->answered(connection_fd(c));
    return queue_framing_refusal(c, framing) ? MHD_YES : MHD_NO;
  }
  if (self.proxying() && self.refuse_long_body(c, framing_fields)) return MHD_YES;
  // A chunked body forwarded is decided once it is in: one over --max-body is refused
  // before the provider counts it, as one declared so is.
  auto* r =
      self.arrive(c, url, method,
                  /*body_first=*/self.proxying() && !framing_fields.transfer_encoding.empty());
  if (self.proxying()) self.prepare_forward(c, method, framing_fields, *r);
  if (conn) conn->body_since_ns = r->seen_steady_ns;
  *con_cls = r;
  return MHD_YES;
}

void MhdCallbacks::on_completed(void* cls, MHD_Connection* c, void** con_cls,
                                MHD_RequestTerminationCode /*toe*/) {
  if (auto* conn = conn_of(c)) conn->in_request = false;
  static_cast<DataPlane*>(cls)->complete(static_cast<DataPlane::Request*>(*con_cls));
  *con_cls = nullptr;
}

DataPlane::Request* DataPlane::arrive(MHD_Connection* c, const char* url, const char* method,
                                      bool body_first) {
  auto* r = new_request(connection_fd(c));
  if (!body_first && !reads_token_field()) decide(c, url, method, *r);
  return r;
}

void DataPlane::decide(MHD_Connection* c, const char* url, const char* method, Request& r) {
  const ProviderConfig& p = provider_.config();
  decide(RequestFacts{tenant_of(c, p), send_headers_of(c, provider_.send_rules()),
                      row_request_of(c, p, url, method), declared_tokens_of(c, p, r.body)},
         r);
}

bool DataPlane::answer(MHD_Connection* c, Request& r) {
  if (r.held) {
    batched() ? hold_for_store(c, r) : hold_for_hop(c, r);
    return true;
  }
  const Decision& d = r.decision;
  if (d.reset_connection) {
    // Linger 0: the close sends a reset, as a provider's dropped connection does.
    const linger lg{1, 0};
    if (const int fd = connection_fd(c); fd >= 0)
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    return false;
  }
  if (forwards(r)) return answer_forwarded(c, r);
  if (d.service_ns > 0 && !r.served) {
    // The service time passes on the timer's thread, not on one of the server's few.
    r.served = true;
    MHD_suspend_connection(c);
    suspended_.fetch_add(1, std::memory_order_relaxed);
    resume_at(r.due_steady_ns, c, loop_of(c));
    return true;
  }
  // Bytes that came in before this answer (a body) are not the next request's arrival.
  if (stamper_) stamper_->answered(connection_fd(c));
  return answers_.queue(c, d, r.row_version);
}

void DataPlane::hold_for_hop(MHD_Connection* c, Request& r) {
  MHD_suspend_connection(c);
  suspended_.fetch_add(1, std::memory_order_relaxed);
  Loop* loop = loop_of(c);
  timer_.schedule(r.held->arrives_steady_ns, [this, c, &r, loop] { decide_held(c, r, loop); });
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
  resume_at(decide_held(r), c, loop);
}

}  // namespace stampede
