// A request's life on the data plane: its headers are collected when complete (the arrival),
// it is admitted by the provider (at once, once its body is in, or a network hop later), held
// for its service time, and answered.
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <string_view>

#include "saturating.hpp"
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

bool DataPlane::reads_token_field() const {
  return !provider_.config().token_field.empty();
}

DataPlane::Request* DataPlane::new_request(int fd) {
  // Not seen yet by the stamper: now, the latest the bytes can have come in.
  const std::int64_t seen_ns = stamper_ ? stamper_->take(fd) : 0;
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  auto* r = new Request;
  r->seen_steady_ns = seen_ns > 0 ? seen_ns : ScenarioClock::steady_ns();
  r->decided = false;
  return r;
}

void DataPlane::decide(MHD_Connection* c, const char* url, const char* method, Request& r) {
  const ProviderConfig& p = provider_.config();
  decide(RequestFacts{tenant_of(c, p), send_headers_of(c, provider_.send_rules()),
                      row_request_of(c, p, url, method), declared_tokens_of(c, p, r.body)},
         r);
}

void DataPlane::decide(const RequestFacts& facts, Request& r) {
  const ProviderConfig& p = provider_.config();
  if (decided_later()) {
    // Decided later: a hop later on the timer's thread, or with the others waiting for the
    // store or the owning process.
    const SendClaim send = claim_send(facts.sends);
    const std::string_view client_id = facts.sends.client.value;
    const RowRequest& row = facts.row;
    r.decided = true;
    r.body = std::string();
    const std::int64_t arrives_ns =
        p.hop_delay
            ? saturating_add(r.seen_steady_ns, provider_.clock().wall_ns(provider_.draw_hop_ns()))
            : r.seen_steady_ns;
    r.held = std::make_unique<Held>(Held{
        loop_index, arrives_ns, std::string(facts.tenant), std::string(client_id), send, row.op,
        row.if_match ? std::optional<std::string>(*row.if_match) : std::nullopt, facts.tokens});
    return;
  }
  take_admission(provider_.admit(arrival_of(facts, r)), r);
}

bool DataPlane::decided_later() const {
  return provider_.config().hop_delay || batched();
}

ProviderArrival DataPlane::arrival_of(const RequestFacts& facts, const Request& r) const {
  return {
      loop_index, r.seen_steady_ns, facts.tenant, claim_send(facts.sends), facts.sends.client.value,
      facts.row,  facts.tokens};
}

void DataPlane::take_admission(const Admission& admission, Request& r) {
  r.decided = true;
  r.body = std::string();
  r.decision = admission.decision;
  r.row_version = admission.row_version;
  r.ticket = admission.ticket;
  if (r.decision.service_ns > 0) {
    r.due_steady_ns = saturating_add(ScenarioClock::steady_ns(),
                                     provider_.clock().wall_ns(r.decision.service_ns));
  }
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

std::int64_t DataPlane::decide_held(Request& r) {
  // The connection is suspended: its loop does not touch r until the resumption.
  const Held& h = *r.held;
  const RowRequest row{h.row_op,
                       h.if_match ? std::optional<std::string_view>(*h.if_match) : std::nullopt};
  // Decided at its arrival, a hop after it was sent: the timer runs the callbacks it holds in
  // deadline order, so the row sees the writes in that order however late this thread runs.
  const auto a =
      provider_.admit({h.loop, h.arrives_steady_ns, h.tenant, h.send, h.client_id, row, h.tokens});
  r.decision = a.decision;
  r.row_version = a.row_version;
  r.ticket = a.ticket;
  r.served = true;  // the service time and the hop back, together
  const std::int64_t back_ns =
      provider_.clock().wall_ns(saturating_add(a.decision.service_ns, provider_.draw_hop_ns()));
  const std::int64_t arrived_ns = h.arrives_steady_ns;
  r.held.reset();
  return saturating_add(arrived_ns, back_ns);
}

void DataPlane::complete(Request* r) {
  if (!r) return;
  // A client gone while its request is forwarded: the upstream's answer is not wanted, and what
  // it answered so far is its count.
  if (r->proxied && r->proxied->pool) {
    r->proxied->pool->cancel(*r->proxied);
    if (!r->proxied->ended) note_forward_end(*r->proxied);
  }
  delete r;
  in_flight_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace stampede
