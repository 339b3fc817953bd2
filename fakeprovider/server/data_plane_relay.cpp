// Proxy mode on the server: a forwarded request's answer is a body that arrives over
// time. Its connection reads no more while the answer is relayed: the head once the upstream's
// is in, then the body as it comes, each piece as far as the client's socket takes it. What the
// socket does not take stays with the exchange (the pool pauses the upstream past its bound,
// UpstreamPool::kPauseBytes), never copied whole into the connection, so a slow reader costs
// that bound and one framed piece. The forward itself is data_plane_forward.cpp's.
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>

#include "server/data_plane_internals.hpp"
#include "server/request_headers.hpp"

namespace stampede {
namespace {

// The most of the answer framed into one chunk.
constexpr std::size_t kRelayPieceBytes = 64 * 1024;

}  // namespace

void DataPlane::prepare_forward(ClientConnection& c) {
  std::vector<HeaderField> fields;
  fields.reserve(c.head.fields.size());
  for (const HeadField& f : c.head.fields) fields.push_back({f.name, f.value});
  const RequestFraming framing = framing_of(c.head);
  prepare_forward(
      ForwardFacts{c.head.method, c.head.target, std::move(fields), c.peer, framing, c.head.size},
      *c.request);
}

bool DataPlane::relay_forwarded(ClientConnection& c) {
  send_forward(*c.request);  // an exchange that fails at once has ended by now
  c.relaying = true;
  c.request->proxied->client = &c;
  return relay(c);
}

bool DataPlane::relay(ClientConnection& c) {
  Proxied& p = *c.request->proxied;
  if (!c.relay_head_sent) {
    if (!p.head_done && !p.ended) return true;  // the pool tells when it is in
    if (stamper_) stamper_->answered(c.fd);
    if (!p.head_done) {
      c.relaying = false;
      p.client = nullptr;
      return write_bytes(c, server_error_bytes(failure_status(p.failure), "upstream_error",
                                               to_string(p.failure), failure_message(p),
                                               /*close=*/!c.keep_alive));
    }
    RelayedHead head = relayed_head(p, c.head_only, c.head.http_1_0, c.keep_alive);
    c.relay_framing = head.framing;
    if (head.framing == RelayFraming::kClose) c.keep_alive = false;
    c.relay_head_sent = true;
    c.relay_end_framed = false;
    c.out = std::move(head.bytes);
    c.out_sent = 0;
  }
  for (;;) {
    frame_chunks(c, p);
    // The framed bytes and, unframed, the answer's own, in one write: a head and its body, or
    // a chunk and the last, never two small writes that Nagle's algorithm would hold apart.
    const std::string_view framed = std::string_view(c.out).substr(c.out_sent);
    const std::string_view raw = c.relay_framing == RelayFraming::kChunked
                                     ? std::string_view()
                                     : p.answer_pending().substr(0, kRelayPieceBytes);
    if (framed.empty() && raw.empty()) break;
    iovec parts[2] = {{const_cast<char*>(framed.data()), framed.size()},
                      {const_cast<char*>(raw.data()), raw.size()}};
    msghdr msg{};
    msg.msg_iov = parts;
    msg.msg_iovlen = 2;
    const ssize_t sent = sendmsg(c.fd, &msg, MSG_NOSIGNAL);
    if (sent < 0 && errno == EAGAIN) return true;  // on at the socket's next EPOLLOUT
    if (sent < 0) {
      close_connection(c);
      return false;
    }
    c.last_active_ns = c.loop->turn_ns;
    const std::size_t of_framed = std::min(static_cast<std::size_t>(sent), framed.size());
    c.out_sent += of_framed;
    if (c.out_sent == c.out.size()) {
      c.out.clear();
      c.out_sent = 0;
    }
    if (static_cast<std::size_t>(sent) > of_framed)
      p.pool->answer_taken(p, static_cast<std::size_t>(sent) - of_framed);
  }
  if (!p.ended) return true;
  // Cut short: the client's connection is cut too, so it cannot take the answer for whole (a
  // chunked one ends without its last chunk).
  if (p.failure != UpstreamFailure::kNone) {
    close_connection(c);
    return false;
  }
  c.relaying = false;
  c.relay_head_sent = false;
  p.client = nullptr;
  return finish_request(c);
}

void DataPlane::frame_chunks(ClientConnection& c, Proxied& p) {
  if (c.relay_framing != RelayFraming::kChunked) return;
  // Framed into the connection's buffer and taken from the exchange's, a piece at a time while
  // the buffer holds less than one.
  while (c.out.size() - c.out_sent < kRelayPieceBytes && !p.answer_pending().empty()) {
    const std::string_view piece = p.answer_pending().substr(0, kRelayPieceBytes);
    append_relayed(c.out, piece, c.relay_framing);
    p.pool->answer_taken(p, piece.size());
  }
  if (p.ended && p.failure == UpstreamFailure::kNone && !c.relay_end_framed) {
    c.out.append(relayed_end(c.relay_framing));
    c.relay_end_framed = true;
  }
}

void DataPlane::relay_news(ClientConnection& c) {
  if (!relay(c) || c.relaying) return;
  // Over: the next request, in what came in meanwhile and in the socket, whose edge has passed.
  if (c.out_sent == c.out.size() && serve(c)) read_requests(c);
}

void DataPlane::take_relays(Loop& loop) {
  // A relay that ends serves the connection's next request, which may be forwarded and fail at
  // once: its news joins the list.
  for (std::size_t i = 0; i < loop.relays.size(); ++i) {
    ClientConnection& c = *loop.relays[i];
    c.relay_due = false;
    if (c.fd >= 0 && c.relaying) relay_news(c);
  }
  loop.relays.clear();
}

}  // namespace stampede
