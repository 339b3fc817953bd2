// A request's life on the data plane: it arrives when its headers are complete, is admitted by
// the provider (with the others of its loop's turn, once its body is in, or a network hop
// later), held for its service time, and answered, or forwarded (data_plane_forward.cpp). The
// server's connections hand their requests here (data_plane_connections.cpp).
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "saturating.hpp"
#include "server/data_plane_internals.hpp"
#include "server/request_headers.hpp"

namespace stampede {

// Decided in the order their bytes came in, as the limiters want their time: the loop read
// them in the order epoll listed their connections.
void DataPlane::sort_by_arrival(std::vector<ProviderArrival>& arrivals,
                                std::vector<ClientConnection*>& conns) {
  const auto earlier = [](const ProviderArrival& a, const ProviderArrival& b) {
    return a.seen_steady_ns < b.seen_steady_ns;
  };
  if (std::is_sorted(arrivals.begin(), arrivals.end(), earlier)) return;
  std::vector<std::size_t> order(arrivals.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return earlier(arrivals[a], arrivals[b]); });
  std::vector<ProviderArrival> sorted_arrivals;
  std::vector<ClientConnection*> sorted_conns;
  sorted_arrivals.reserve(order.size());
  sorted_conns.reserve(order.size());
  for (const std::size_t i : order) {
    sorted_arrivals.push_back(arrivals[i]);
    sorted_conns.push_back(conns[i]);
  }
  arrivals.swap(sorted_arrivals);
  conns.swap(sorted_conns);
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

void DataPlane::hold_for_hop(const RequestFacts& facts, Request& r) {
  const SendClaim send = claim_send(facts.sends);
  const std::string_view client_id = facts.sends.client.value;
  const RowRequest& row = facts.row;
  r.decided = true;
  r.body = std::string();
  const std::int64_t arrives_ns =
      saturating_add(r.seen_steady_ns, provider_.clock().wall_ns(provider_.draw_hop_ns()));
  r.held = std::make_unique<Held>(
      Held{loop_index, arrives_ns, std::string(facts.tenant), std::string(client_id), send, row.op,
           row.if_match ? std::optional<std::string>(*row.if_match) : std::nullopt, facts.tokens,
           facts.llm});
}

ProviderArrival DataPlane::arrival_of(const RequestFacts& facts, const Request& r) const {
  return {
      loop_index, r.seen_steady_ns, facts.tenant, claim_send(facts.sends), facts.sends.client.value,
      facts.row,  facts.tokens,     facts.llm};
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

std::int64_t DataPlane::decide_held(Request& r) {
  // The connection waits: its loop does not touch r until the timer hands it back.
  const Held& h = *r.held;
  const RowRequest row{h.row_op,
                       h.if_match ? std::optional<std::string_view>(*h.if_match) : std::nullopt};
  // Decided at its arrival, a hop after it was sent: the timer runs the callbacks it holds in
  // deadline order, so the row sees the writes in that order however late this thread runs.
  const auto a = provider_.admit(
      {h.loop, h.arrives_steady_ns, h.tenant, h.send, h.client_id, row, h.tokens, h.llm});
  r.decision = a.decision;
  r.row_version = a.row_version;
  r.ticket = a.ticket;
  if (r.decision.reservation.held()) r.reserved_by = h.tenant;
  r.served = true;  // the service time and the hop back, together
  const std::int64_t back_ns =
      provider_.clock().wall_ns(saturating_add(a.decision.service_ns, provider_.draw_hop_ns()));
  const std::int64_t arrived_ns = h.arrives_steady_ns;
  r.held.reset();
  return saturating_add(arrived_ns, back_ns);
}

void DataPlane::complete(Request* r) {
  if (!r) return;
  // Its client gone before its answer ended: what it wrote is what it used.
  settle_llm(*r, r->stream ? r->stream->next : 0);
  // A client gone while its request is forwarded: the upstream's answer is not wanted, and what
  // it answered so far is its count.
  if (r->proxied && r->proxied->pool) {
    r->proxied->pool->cancel(*r->proxied);
    if (!r->proxied->ended) note_forward_end(*r->proxied);
  }
  delete r;
  in_flight_.fetch_sub(1, std::memory_order_relaxed);
}

void DataPlane::decide(ClientConnection& c) {
  const ProviderConfig& p = provider_.config();
  Request& r = *c.request;
  const std::string_view path = request_path(c.head.target, c.path_scratch);
  const RequestFacts facts{tenant_of(c.head, p), send_headers_of(c.head, provider_.send_rules()),
                           row_request_of(c.head, p, path), declared_tokens_of(c.head, p, r.body),
                           llm_charge_of(c.head, p, r.asked)};
  // Held for a hop; the rest are asked about in the turn's batch, of this process's provider,
  // or on the loop's line to the store or to the process that owns the provider.
  if (provider_.config().hop_delay) {
    hold_for_hop(facts, r);
    return;
  }
  // Its views are into the head, which stays put until the request is answered.
  c.loop->batch.push_back(arrival_of(facts, r));
  c.loop->batch_conns.push_back(&c);
  c.deciding = true;
}

void DataPlane::admit_batch(Loop& loop) {
  if (loop.line) {
    ask_line(loop);
    return;
  }
  // A pipelined request found in what came with an answered one joins the next batch.
  while (!loop.batch.empty()) {
    std::vector<ProviderArrival> arrivals;
    std::vector<ClientConnection*> conns;
    arrivals.swap(loop.batch);
    conns.swap(loop.batch_conns);
    sort_by_arrival(arrivals, conns);
    settle(conns, provider_.admit_all(arrivals));
  }
}

void DataPlane::settle(const std::vector<ClientConnection*>& conns,
                       const std::vector<Admission>& admitted) {
  for (std::size_t i = 0; i < conns.size(); ++i) {
    ClientConnection& c = *conns[i];
    take_admission(admitted[i], *c.request);
    // Kept only by what is settled later: most answers hold nothing.
    if (c.request->decision.reservation.held())
      c.request->reserved_by = tenant_of(c.head, provider_.config());
    forward_decided(*c.request);
    c.deciding = false;
    // On to its body, or its answer.
    if (serve(c) && c.unread) read_requests(c);
  }
}

bool DataPlane::answer(ClientConnection& c) {
  Request& r = *c.request;
  if (r.held) {
    hold_until(c, r.held->arrives_steady_ns, /*decide_first=*/true);
    return true;
  }
  const Decision& d = r.decision;
  if (d.reset_connection) {
    // Linger 0: the close sends a reset, as a provider's dropped connection does.
    const linger lg{1, 0};
    setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close_connection(c);
    return false;
  }
  if (forwards(r)) return relay_forwarded(c);
  if (d.service_ns > 0 && !r.served) {
    r.served = true;
    hold_until(c, r.due_steady_ns, /*decide_first=*/false);
    return true;
  }
  // A request without a body is answered as before: the one-token answer.
  if (r.asked && admitted(d)) return answer_llm(c);
  // Bytes that came in before this answer (a body) are not the next request's arrival.
  if (stamper_) stamper_->answered(c.fd);
  std::string_view bytes = answers_.bytes(d, r.row_version);
  // Said in the answer when it is not HTTP/1.1's default: before the blank line.
  const char* connection = !c.keep_alive     ? "Connection: close\r\n"
                           : c.head.http_1_0 ? "Connection: Keep-Alive\r\n"
                                             : nullptr;
  std::string said;
  if (connection) {
    const std::size_t blank = bytes.find("\r\n\r\n");
    said.append(bytes.substr(0, blank + 2)).append(connection).append(bytes.substr(blank + 2));
    bytes = said;
  }
  if (c.head_only) bytes = bytes.substr(0, bytes.find("\r\n\r\n") + 4);
  return write_bytes(c, bytes);
}

void DataPlane::hold_until(ClientConnection& c, std::int64_t due_steady_ns, bool decide_first) {
  c.waiting = true;
  waiting_.fetch_add(1, std::memory_order_relaxed);
  if (!decide_first) {
    c.loop->due.push(due_steady_ns, &c);
    return;
  }
  ClientConnection* conn = &c;
  const auto hand_back = [this, conn] {
    Loop& loop = *conn->loop;
    {
      std::lock_guard lock(loop.handed_mu);
      loop.resumed.push_back(conn);
    }
    eventfd_write(loop.wake_fd, 1);
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  };
  // The hop in is over: decided on the timer's thread, in deadline order, so the row sees the
  // writes in that order however late a loop runs; then answered a hop later.
  timer_.schedule(due_steady_ns, [this, conn, hand_back] {
    timer_.schedule(decide_held(*conn->request), hand_back);
  });
}

void DataPlane::take_resumed(Loop& loop) {
  std::vector<ClientConnection*> resumed;
  {
    std::lock_guard lock(loop.handed_mu);
    resumed.swap(loop.resumed);
  }
  for (ClientConnection* c : resumed) resume(*c);
}

void DataPlane::take_due(Loop& loop) {
  if (loop.due.empty()) return;
  // A stop sends what is left at once: no connection waits out its time.
  const std::int64_t now_ns =
      loop.drop_upstream.load() ? DueQueue<ClientConnection*>::kNone : ScenarioClock::steady_ns();
  loop.due_now.clear();
  loop.due.take_due(now_ns, loop.due_now);
  waiting_.fetch_sub(static_cast<std::int64_t>(loop.due_now.size()), std::memory_order_relaxed);
  for (ClientConnection* c : loop.due_now) resume(*c);
}

void DataPlane::arm_due(Loop& loop) {
  const std::int64_t next_ns = loop.due.next_due();
  if (next_ns == loop.armed_ns) return;
  // One setting a turn, not one a wait: the timerfd wakes the loop at the earliest due.
  itimerspec at{};
  if (next_ns != DueQueue<ClientConnection*>::kNone) {
    const std::int64_t ns = std::max<std::int64_t>(next_ns, 1);
    at.it_value = {static_cast<time_t>(ns / kNsPerSec), static_cast<long>(ns % kNsPerSec)};
  }
  timerfd_settime(loop.due_fd, TFD_TIMER_ABSTIME, &at, nullptr);
  loop.armed_ns = next_ns;
}

void DataPlane::resume(ClientConnection& c) {
  c.waiting = false;
  if (c.fd < 0) {  // closed while it waited
    release(c);
    return;
  }
  // What came in meanwhile is read after the answer: its edge has passed.
  if (answer(c) && serve(c)) read_requests(c);
}

}  // namespace stampede
