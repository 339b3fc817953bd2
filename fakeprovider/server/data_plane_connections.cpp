// The server: the data plane's own HTTP/1.1. Each loop has its own
// epoll set, edge-triggered, of the listen socket and its connections (and, in proxy mode, its
// upstream pool's set). A connection reads into a buffer of its own; a request's head is parsed
// when its blank line is in (request_head), its body read by its framing (body_framing), and
// the request handed to its life (data_plane_requests.cpp), which decides and answers it. An
// answer is one send of bytes each thread keeps for the
// answer it last built (AnswerWriter::bytes); a forwarded one is relayed (data_plane_relay.cpp).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "direct_socket_calls.hpp"
#include "duration.hpp"
#include "http_token.hpp"
#include "saturating.hpp"
#include "server/data_plane_internals.hpp"
#include "server/request_headers.hpp"

namespace stampede {
namespace {

constexpr int kMaxEvents = 256;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// The epoll set's markers besides connections.
void* listen_marker() {
  static char marker;
  return &marker;
}
void* wake_marker() {
  static char marker;
  return &marker;
}
void* line_marker() {
  static char marker;
  return &marker;
}
void* upstream_marker() {
  static char marker;
  return &marker;
}
void* due_marker() {
  static char marker;
  return &marker;
}

bool expects_continue(const RequestHead& head) {
  const std::string_view* expect = head.find("Expect");
  return !head.http_1_0 && expect && ascii_iequals(trim_ows(*expect), "100-continue");
}

}  // namespace

void DataPlane::run_loop(Loop& loop) {
  const std::int64_t sweep_ns = sweep_period_ns(config_.header_timeout_ns);
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.ptr = wake_marker();
  epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, loop.wake_fd, &wake);
  epoll_event due{};
  due.events = EPOLLIN;
  due.data.ptr = due_marker();
  epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, loop.due_fd, &due);
  if (loop.upstream) {
    // The pool's own epoll set, level-triggered: readable while any of its sockets has news.
    epoll_event pool{};
    pool.events = EPOLLIN;
    pool.data.ptr = upstream_marker();
    epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, loop.upstream->fd(), &pool);
  }
  epoll_event events[kMaxEvents];
  while (!loop.stop.load()) {
    const bool accepting = !loop.quiesce.load();
    if (accepting != loop.listening) set_listening(loop, accepting);
    // Only once the listen socket is out of the set: stop() closes it when every loop is.
    if (!accepting) loop.quiesced.store(true);
    auto wait_ms = static_cast<int>(
        std::max<std::int64_t>(0, loop.next_sweep_ns - loop.turn_ns) / kNsPerMs + 1);
    if (loop.upstream) {
      if (const int upstream_ms = loop.upstream->timeout_ms(); upstream_ms >= 0)
        wait_ms = std::min(wait_ms, upstream_ms);
    }
    if (loop.drop_upstream.load() && !loop.due.empty()) wait_ms = 0;
    arm_due(loop);
    const int n = epoll_wait(loop.epoll_fd, events, kMaxEvents, wait_ms);
    loop.turn_ns = ScenarioClock::steady_ns();
    // The pool first, before anything of this turn puts a request on one of its idle
    // connections: what they heard by this wait is read (all of the set's news when the wait's
    // events were cut short and may not name it).
    if (loop.upstream) {
      run_upstream(loop,
                   n == kMaxEvents || std::any_of(events, events + n, [](const epoll_event& e) {
                     return e.data.ptr == upstream_marker();
                   }));
    }
    for (int i = 0; i < n; ++i) {
      void* ptr = events[i].data.ptr;
      if (ptr == upstream_marker()) {
        continue;
      } else if (ptr == listen_marker()) {
        accept_connections(loop);
      } else if (ptr == due_marker()) {
        std::uint64_t expirations;
        if (read(loop.due_fd, &expirations, sizeof expirations) < 0) expirations = 0;
        loop.armed_ns = DueQueue<ClientConnection*>::kNone;  // fired: disarmed
      } else if (ptr == line_marker()) {
        take_line_answer(loop);
      } else if (ptr == wake_marker()) {
        eventfd_t ignored;
        eventfd_read(loop.wake_fd, &ignored);
        add_handed_connections(loop);
        take_resumed(loop);
      } else {
        on_event(*static_cast<ClientConnection*>(ptr), events[i].events);
      }
    }
    take_due(loop);
    admit_batch(loop);
    take_relays(loop);
    if (loop.turn_ns >= loop.next_sweep_ns) {
      sweep(loop, loop.turn_ns);
      refusals_.flush(loop.turn_ns);
      loop.next_sweep_ns = loop.turn_ns + sweep_ns;
    }
    for (ClientConnection* c : loop.released) delete c;
    loop.released.clear();
  }
}

void DataPlane::set_listening(Loop& loop, bool on) {
  // Level-triggered, one loop woken a connection: accept_connections hands them round.
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLEXCLUSIVE;
  ev.data.ptr = listen_marker();
  epoll_ctl(loop.epoll_fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, listen_fd_, &ev);
  loop.listening = on;
}

void DataPlane::add_connection(Loop& loop, int fd, const sockaddr_storage& addr) {
  auto* c = new ClientConnection;
  c->fd = fd;
  c->loop = &loop;
  if (proxying()) {
    c->peer = address_text(reinterpret_cast<const sockaddr*>(&addr));
    // A streamed answer's pieces go out as they come, not held for the last one's ACK.
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  c->in = std::make_unique<char[]>(config_.memory_per_connection);
  c->last_active_ns = loop.turn_ns;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = c;
  if (epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
    close(fd);
    delete c;
    open_connections_.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  loop.connections.insert(c);
  // Its first request may be in already, its edge come before the set held it.
  read_requests(*c);
}

void DataPlane::on_event(ClientConnection& c, std::uint32_t events) {
  if (c.fd < 0 || c.waiting) return;  // closed this turn; or handed back by the timer, then read
  if (c.relaying) {
    // The client gone: its forward is forgotten, what the upstream answered so far counted.
    if (events & (EPOLLERR | EPOLLHUP)) return close_connection(c);
    return relay_news(c);  // the socket takes more of the answer
  }
  if (c.out_sent < c.out.size()) {
    // Nothing was read while the answer waited to go out: what came in meanwhile is read now.
    if (flush(c) && c.out_sent == c.out.size()) read_requests(c);
    return;
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) read_requests(c);
}

void DataPlane::read_requests(ClientConnection& c) {
  // While an answer is going out or waits, what comes in stays in the socket.
  c.unread = false;
  while (!c.waiting && !c.relaying && c.out_sent == c.out.size()) {
    if (c.deciding) {
      c.unread = true;
      return;
    }
    const std::size_t room = config_.memory_per_connection - c.filled;
    if (room == 0) {
      serve(c);  // a head that fills the buffer: refused
      return;
    }
    // Through the stamper, which may need to see the read (the kernel's receive stamps).
    char* to = c.in.get() + c.filled;
    const ssize_t got = stamper_ ? stamper_->receive(c.fd, to, room) : recv(c.fd, to, room, 0);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
      close_connection(c);
      return;
    }
    if (got < 0) return;
    c.filled += static_cast<std::size_t>(got);
    c.last_active_ns = c.loop->turn_ns;
    if (!serve(c)) return;
    // A short read emptied the socket: its next bytes are a new edge.
    if (static_cast<std::size_t>(got) < room) return;
  }
}

bool DataPlane::serve(ClientConnection& c) {
  while (!c.waiting && !c.deciding && !c.relaying && c.out_sent == c.out.size()) {
    if (!c.request) {
      if (c.filled == 0) return true;
      const HeadVerdict v =
          parse_request_head({c.in.get(), c.filled}, config_.memory_per_connection - 1, c.head);
      if (v.state == HeadVerdict::State::kIncomplete) return true;
      if (v.state == HeadVerdict::State::kBad) {
        return refuse(c, v.status, "invalid_request_error", "request_head", v.reason);
      }
      if (!start_request(c)) return false;
      continue;
    }
    char* rest = c.in.get() + c.head.size;
    const std::size_t left = c.filled - c.head.size;
    Request& r = *c.request;
    const std::size_t used = feed_body(c, {rest, left});
    std::memmove(rest, rest + used, left - used);
    c.filled -= used;
    if (c.body.failed()) {
      return refuse(c, 400, "invalid_request_error", "request_framing",
                    "The chunked body is malformed: " + std::string(c.body.why()));
    }
    if (!c.body.done()) return true;
    c.body_since_ns = 0;
    if (r.proxied && r.proxied->too_long) {
      // Read whole by now: the connection's next request can be found.
      return refuse(c, 413, "request_too_large", "body_too_long",
                    too_long_message("the chunked body is longer than"), /*keep=*/true);
    }
    if (!r.decided) {
      // A body its dialect refuses is answered before the limiters see it: nothing charged.
      if (const auto refused = refuse_llm_body(c)) {
        if (!*refused) return false;
        continue;
      }
      decide(c);
    }
    if (c.deciding) return true;
    if (!answer(c)) return false;
  }
  return true;
}

std::size_t DataPlane::feed_body(ClientConnection& c, std::string_view bytes) {
  Request& r = *c.request;
  if (!r.proxied) {
    const bool keep = (!r.decided || r.llm) && r.body.size() <= kMaxTokenBody;
    return c.body.feed(bytes, keep ? &r.body : nullptr, kMaxTokenBody + 1);
  }
  std::string& piece = c.loop->body_piece;
  piece.clear();
  const std::size_t used = c.body.feed(bytes, &piece, std::numeric_limits<std::size_t>::max());
  take_body(r, piece);
  return used;
}

bool DataPlane::start_request(ClientConnection& c) {
  const HeadVerdict head =
      check_tenant_fields(count_fields(c.head, provider_.config().tenant_header));
  if (head.state == HeadVerdict::State::kBad)
    return refuse(c, head.status, "invalid_request_error", "request_head", head.reason);
  const RequestFraming framing = framing_of(c.head);
  const FramingVerdict verdict = check_framing(framing);
  if (verdict.status != 0) {
    refusals_.note(ConnectionRefusals::Kind::kBadFraming, ScenarioClock::steady_ns());
    return refuse(c, verdict.status, "invalid_request_error", "request_framing", verdict.reason);
  }
  const auto length = declared_length(framing);
  if (length == std::numeric_limits<std::uint64_t>::max())
    return refuse(c, 400, "invalid_request_error", "request_framing",
                  "Content-Length is too large");
  if (proxying()) {
    if (const auto too_long = too_long_declared(framing))
      return refuse(c, 413, "request_too_large", "body_too_long", *too_long);
  }
  c.body = framing.transfer_encoding.empty() ? BodyFraming::of_length(length.value_or(0))
                                             : BodyFraming::chunked();
  c.keep_alive = keeps_alive(c.head);
  c.head_only = c.head.method == "HEAD";
  c.request = new_request(c.fd);
  c.request->llm = is_llm_request(c);
  c.body_since_ns = c.request->seen_steady_ns;
  if (proxying()) prepare_forward(c);
  // Decided at its arrival, unless its body says what it asks for (its tokens, or an LLM
  // request's answer), or is a chunked one to forward: one over --max-body is refused before
  // the provider counts it.
  const bool body_first = !provider_.config().token_field.empty() || c.request->llm ||
                          (proxying() && !framing.transfer_encoding.empty());
  if (!body_first) decide(c);
  // The client waits for this before it sends the body (curl does, a second at most).
  if (!c.body.done() && c.filled == c.head.size && expects_continue(c.head)) {
    direct_send(c.fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL);
  }
  return true;
}

void DataPlane::ask_line(Loop& loop) {
  // One question in flight on the line; what arrives meanwhile is asked about with its answer.
  if (!loop.line_asked.empty() || loop.batch.empty()) return;
  sort_by_arrival(loop.batch, loop.batch_conns);
  loop.line->ask(loop.batch);  // written at once: the views are done with
  loop.batch.clear();
  loop.line_asked.swap(loop.batch_conns);
  // Watched only while a question is in flight: an owner gone reads as ever readable.
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = line_marker();
  epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, loop.line->fd(), &ev);
}

void DataPlane::take_line_answer(Loop& loop) {
  epoll_ctl(loop.epoll_fd, EPOLL_CTL_DEL, loop.line->fd(), nullptr);
  std::vector<ClientConnection*> conns;
  conns.swap(loop.line_asked);
  settle(conns, loop.line->answer(conns.size()));
  ask_line(loop);
}

bool DataPlane::write_bytes(ClientConnection& c, std::string_view bytes) {
  const ssize_t sent = direct_send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (sent < 0 && errno != EAGAIN) {
    close_connection(c);
    return false;
  }
  const auto n = static_cast<std::size_t>(std::max<ssize_t>(sent, 0));
  if (n == bytes.size()) return finish_request(c);
  c.out.assign(bytes.substr(n));
  c.out_sent = 0;
  return true;
}

bool DataPlane::flush(ClientConnection& c) {
  while (c.out_sent < c.out.size()) {
    const ssize_t sent =
        direct_send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
    if (sent < 0 && errno == EAGAIN) return true;
    if (sent < 0) {
      close_connection(c);
      return false;
    }
    c.out_sent += static_cast<std::size_t>(sent);
  }
  c.out.clear();
  c.out_sent = 0;
  return finish_request(c) && serve(c);
}

bool DataPlane::finish_request(ClientConnection& c) {
  if (c.out_sent < c.out.size()) return true;
  if (c.request && c.request->stream && !c.request->stream->ended) return true;  // more to come
  if (!c.request) {  // a refusal: the connection ends with it
    close_connection(c);
    return false;
  }
  complete(c.request);
  c.request = nullptr;
  // The next request's bytes to the buffer's start; the head's views are done with.
  std::memmove(c.in.get(), c.in.get() + c.head.size, c.filled - c.head.size);
  c.filled -= c.head.size;
  c.head.size = 0;
  c.last_active_ns = c.loop->turn_ns;
  if (!c.keep_alive) {
    close_connection(c);
    return false;
  }
  return true;
}

bool DataPlane::refuse(ClientConnection& c, int status, std::string_view type,
                       std::string_view reason, std::string_view message, bool keep) {
  if (stamper_) stamper_->answered(c.fd);
  // A request past which the next cannot be found: answered, and the connection closed.
  if (!keep) {
    complete(c.request);
    c.request = nullptr;
    c.keep_alive = false;
  }
  return write_bytes(c, server_error_bytes(status, type, reason, message, /*close=*/!keep));
}

void DataPlane::close_connection(ClientConnection& c) {
  if (c.fd < 0) return;
  close(c.fd);  // and out of the epoll set
  c.fd = -1;
  open_connections_.fetch_sub(1, std::memory_order_relaxed);
  if (c.waiting) return;  // the timer holds it: released when handed back
  release(c);
}

void DataPlane::release(ClientConnection& c) {
  complete(c.request);
  c.request = nullptr;
  c.loop->connections.erase(&c);
  // Deleted at the end of the turn: an event of this turn may still name it.
  c.loop->released.push_back(&c);
}

void DataPlane::sweep(Loop& loop, std::int64_t now_ns) {
  const std::int64_t idle_ns = static_cast<std::int64_t>(config_.idle_timeout_s) * kNsPerSec;
  std::vector<std::pair<ClientConnection*, ConnectionRefusals::Kind>> cut;
  std::vector<ClientConnection*> idle;
  for (ClientConnection* c : loop.connections) {
    if (c->waiting || c->deciding || c->fd < 0) continue;  // the timer or the line holds it
    // Silent: between requests, or a relayed answer the client stopped taking.
    const bool between = !c->request && c->filled == 0 && c->out.empty();
    if ((between || c->relay_head_sent) && now_ns - c->last_active_ns > idle_ns) {
      idle.push_back(c);
      continue;
    }
    if (config_.header_timeout_ns <= 0) continue;
    // The headers count from the first byte the stamper saw; a body from its request's first
    // byte until all of it is in (a service time or a hop after that is ours).
    const std::int64_t since = c->request ? c->body_since_ns
                               : stamper_ ? stamper_->pending_since(c->fd)
                                          : 0;
    if (since == 0 || now_ns - since <= config_.header_timeout_ns) continue;
    cut.emplace_back(c, c->request ? ConnectionRefusals::Kind::kSlowBody
                                   : ConnectionRefusals::Kind::kSlowHeaders);
  }
  for (ClientConnection* c : idle) close_connection(*c);
  for (auto [c, kind] : cut) {
    close_connection(*c);
    refusals_.note(kind, now_ns);
  }
}

}  // namespace stampede
