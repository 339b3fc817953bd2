// Proxy mode on the native server: a forwarded request's answer is a body that arrives over
// time. Its connection reads no more while the answer is relayed: the head once the upstream's
// is in, then the body as it comes, each piece as far as the client's socket takes it. What the
// socket does not take stays with the exchange (the pool pauses the upstream past its bound,
// UpstreamPool::kPauseBytes), never copied whole into the connection, so a slow reader costs
// that bound and one framed piece. The forward itself is data_plane_forward.cpp's.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "direct_socket_calls.hpp"
#include "server/data_plane_internals.hpp"
#include "server/request_headers.hpp"

namespace stampede {
namespace {

// The most of the answer framed into one chunk.
constexpr std::size_t kRelayPieceBytes = 64 * 1024;

}  // namespace

void DataPlane::prepare_forward(NativeConn& c) {
  std::vector<HeaderField> fields;
  fields.reserve(c.head.fields.size());
  for (const HeadField& f : c.head.fields) fields.emplace_back(f.name, f.value);
  const RequestFraming framing = framing_of(c.head);
  prepare_forward(
      ForwardFacts{c.head.method, c.head.target, std::move(fields), c.peer, framing, c.head.size},
      *c.request);
}

bool DataPlane::relay_forwarded(NativeConn& c) {
  send_forward(*c.request);  // an exchange that fails at once has ended by now
  c.relaying = true;
  c.request->proxied->native = &c;
  return relay(c);
}

bool DataPlane::relay(NativeConn& c) {
  Proxied& p = *c.request->proxied;
  if (!c.relay_head_sent) {
    if (!p.head_done && !p.ended) return true;  // the pool tells when it is in
    if (stamper_) stamper_->answered(c.fd);
    if (!p.head_done) {
      c.relaying = false;
      p.native = nullptr;
      return write_native(c, server_error_bytes(failure_status(p.failure), "upstream_error",
                                                to_string(p.failure), failure_message(p),
                                                /*close=*/!c.keep_alive));
    }
    RelayedHead head = relayed_head(p, c.head_only, c.head.http_1_0, c.keep_alive);
    c.relay_framing = head.framing;
    if (head.framing == RelayFraming::kClose) c.keep_alive = false;
    c.relay_head_sent = true;
    c.out = std::move(head.bytes);
    c.out_sent = 0;
  }
  if (!relay_body(c, p)) return false;
  if (!p.ended || c.out_sent < c.out.size() || !p.answer_pending().empty()) return true;
  return end_relay(c);
}

bool DataPlane::relay_body(NativeConn& c, Proxied& p) {
  for (;;) {
    while (c.out_sent < c.out.size()) {
      const ssize_t sent =
          direct_send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
      if (sent < 0 && errno == EAGAIN) return true;
      if (sent < 0) {
        close_native(c);
        return false;
      }
      c.out_sent += static_cast<std::size_t>(sent);
      c.last_active_ns = c.loop->turn_ns;
    }
    c.out.clear();
    c.out_sent = 0;
    const std::string_view pending = p.answer_pending();
    if (pending.empty()) return true;
    const std::string_view piece = pending.substr(0, kRelayPieceBytes);
    if (c.relay_framing == RelayFraming::kChunked) {
      // Framed into the connection's buffer, taken from the exchange's at once.
      append_relayed(c.out, piece, c.relay_framing);
      p.pool->answer_taken(p, piece.size());
      continue;
    }
    // As it is: straight from the exchange's buffer, which keeps what the socket did not take.
    const ssize_t sent = direct_send(c.fd, piece.data(), piece.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EAGAIN) return true;
    if (sent < 0) {
      close_native(c);
      return false;
    }
    c.last_active_ns = c.loop->turn_ns;
    p.pool->answer_taken(p, static_cast<std::size_t>(sent));
  }
}

bool DataPlane::end_relay(NativeConn& c) {
  Proxied& p = *c.request->proxied;
  // Cut short: the client's connection is cut too, so it cannot take the answer for whole (a
  // chunked one ends without its last chunk).
  if (p.failure != UpstreamFailure::kNone) {
    close_native(c);
    return false;
  }
  const std::string_view end = relayed_end(c.relay_framing);
  c.relaying = false;
  c.relay_head_sent = false;
  p.native = nullptr;
  return end.empty() ? finish_native_request(c) : write_native(c, end);
}

void DataPlane::relay_news(NativeConn& c) {
  if (!relay(c) || c.relaying) return;
  // Over: the next request, in what came in meanwhile and in the socket, whose edge has passed.
  if (c.out_sent == c.out.size() && serve_native(c)) read_native(c);
}

void DataPlane::take_relays(Loop& loop) {
  // A relay that ends serves the connection's next request, which may be forwarded and fail at
  // once: its news joins the list.
  for (std::size_t i = 0; i < loop.relays.size(); ++i) {
    NativeConn& c = *loop.relays[i];
    c.relay_due = false;
    if (c.fd >= 0 && c.relaying) relay_news(c);
  }
  loop.relays.clear();
}

}  // namespace stampede
