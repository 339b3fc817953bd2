// Proxy mode, a request's forward: a request the provider admits goes on to the upstream
// (UpstreamPool, one per loop), its body as it comes in, and its answer comes back over time,
// the pool's news handed to the connection that holds the client, which relays it
// (data_plane_relay.cpp). What the upstream answered is recorded beside the arrival.
// Everything here runs on the request's loop thread.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>

#include "server/data_plane_internals.hpp"
#include "server/request_headers.hpp"

namespace stampede {
namespace {

// The client's connection holds its request's head and the answer's head together in its
// memory; the spare kilobyte is for what the server adds to the head (the length, the reason
// phrase, Connection). An upstream head longer than
// what is left is a 502, never a connection closed without a byte.
constexpr std::size_t kAnswerHeadSpare = 1024;

std::size_t answer_head_room(std::size_t memory, std::size_t request_head) {
  return memory > request_head + kAnswerHeadSpare ? memory - request_head - kAnswerHeadSpare : 0;
}

std::string failure_words(UpstreamFailure f) {
  if (f == UpstreamFailure::kTimedOut) return " was silent for --upstream-timeout";
  if (f == UpstreamFailure::kPoolBusy) return " was not asked: no connection to it came free";
  return " gave no answer";
}

}  // namespace

std::string address_text(const sockaddr* sa) {
  char text[INET6_ADDRSTRLEN] = "";
  if (sa && sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  if (sa && sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  return text;
}

// The silence of the upstream is 504, the pool's connections all busy past the timeout 503 (the
// provider's own limit), anything else 502.
int DataPlane::failure_status(UpstreamFailure f) {
  if (f == UpstreamFailure::kTimedOut) return 504;
  if (f == UpstreamFailure::kPoolBusy) return 503;
  return 502;
}

std::string DataPlane::failure_message(const Proxied& p) const {
  return "the upstream " + config_.upstream->url.base() + failure_words(p.failure) + ": " +
         p.failure_detail;
}

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
  plane.answer_came(static_cast<Proxied&>(x));
}

void DataPlane::ProxyEvents::on_body(UpstreamExchange& x) {
  plane.answer_came(static_cast<Proxied&>(x));
}

void DataPlane::ProxyEvents::on_end(UpstreamExchange& x) {
  auto& p = static_cast<Proxied&>(x);
  plane.note_forward_end(p);
  plane.answer_came(p);
}

void DataPlane::answer_came(Proxied& p) {
  if (!p.client) return;  // not waited for yet: the relay starts from what came by then
  // Relayed once the pool's call is over: writing to the client may end the request, and
  // with it the exchange the pool is still in the middle of.
  ClientConnection& c = *p.client;
  if (c.relay_due) return;
  c.relay_due = true;
  c.loop->relays.push_back(&c);
}

std::optional<std::string> DataPlane::too_long_declared(const RequestFraming& framing) {
  const auto length = declared_length(framing);
  if (!length || *length <= config_.upstream->max_body) return std::nullopt;
  return too_long_message("the body is " + std::to_string(*length) + " bytes, more than");
}

std::string DataPlane::too_long_message(const std::string& what) {
  refusals_.note(ConnectionRefusals::Kind::kBodyTooLong, ScenarioClock::steady_ns());
  return what + " this provider forwards: at most " + std::to_string(config_.upstream->max_body) +
         " bytes (--max-body)";
}

void DataPlane::prepare_forward(const ForwardFacts& facts, Request& r) {
  // Refused at its headers: answered by the provider, nothing to prepare.
  if (r.decided && !r.held && !admitted(r.decision)) return;
  auto p = std::make_unique<Proxied>();
  p->method = facts.method;
  p->target = origin_form(facts.target);
  p->headers =
      upstream_request_headers(facts.fields, config_.upstream->strip_headers, {facts.peer, "http"});
  p->max_answer_head = answer_head_room(config_.memory_per_connection, facts.head_bytes);
  p->body_size = declared_length(facts.framing);
  p->chunked = !facts.framing.transfer_encoding.empty();
  r.proxied = std::move(p);
  forward_decided(r);
}

void DataPlane::forward_decided(Request& r) {
  if (!r.proxied || !r.decided || r.held || r.proxied->started) return;
  if (!admitted(r.decision)) {
    r.proxied.reset();
    return;
  }
  if (!r.proxied->chunked) start_forward(r);
}

void DataPlane::take_body(Request& r, std::string_view piece) {
  if (r.proxied) {
    Proxied& p = *r.proxied;
    if (p.body.size() + piece.size() > config_.upstream->max_body) {
      p.too_long = true;  // only a chunked body can: a declared length was checked
    } else {
      p.body.append(piece);
      if (p.started) p.pool->body_added(p);
    }
  }
  // Kept only while a token field is to be read from it, and only up to the limit: a longer
  // body is not read (and its count is malformed).
  if (!r.decided && reads_token_field() && r.body.size() <= kMaxTokenBody)
    r.body.append(piece.substr(0, kMaxTokenBody + 1 - r.body.size()));
}

bool DataPlane::forwards(const Request& r) const {
  return r.proxied && admitted(r.decision);
}

void DataPlane::start_forward(Request& r) {
  r.proxied->ticket = r.ticket;
  r.proxied->started = true;
  loops_[loop_index]->upstream->start(*r.proxied);
}

void DataPlane::send_forward(Request& r) {
  Proxied& p = *r.proxied;
  if (p.started) return;
  // Decided after a hop, or a chunked body: the body is
  // whole by now, and within --max-body.
  if (p.chunked) p.body_size = p.body.size();
  start_forward(r);
}

void DataPlane::run_upstream(Loop& loop, bool ready) {
  UpstreamPool* upstream = loop.upstream.get();
  if (!upstream) return;
  if (loop.drop_upstream.load()) upstream->fail_all(UpstreamFailure::kStopped);
  upstream->waited(ready);
}

}  // namespace stampede
