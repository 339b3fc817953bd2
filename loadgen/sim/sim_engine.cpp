#include "sim/sim_engine.hpp"

#include <array>
#include <limits>
#include <unordered_map>
#include <vector>

#include "model/llm_pacing.hpp"
#include "model/model_limits.hpp"
#include "model/provider_policy.hpp"
#include "policy/arrival_schedule.hpp"
#include "policy/item_life.hpp"
#include "policy/llm_request_body.hpp"
#include "policy/open_arrivals.hpp"
#include "policy/workload.hpp"
#include "saturating.hpp"
#include "sim/event_queue.hpp"
#include "sim/fleet_llm_ask.hpp"
#include "sim/sim_fleet.hpp"

namespace stampede {
namespace {

// An arrival's client field is its arrival stream, one per shard (the open model).
enum class EventKind : std::uint8_t { kSend, kAnswer, kArrival };

// An answer the provider is still taking its time over (service latency or a timeout).
// Retry-After is read as whole seconds, so 8 bytes hold it: up to 68 years, past any horizon.
struct PendingAnswer {
  Outcome outcome = Outcome::kOk;
  bool should_retry = true;  // the provider's x-should-retry: false (a spend cap)
  std::int32_t retry_after_s = -1;
};
static_assert(sizeof(PendingAnswer) == 8);

// One client's state: exactly a cache line, so an event costs one miss into a million
// clients' state, and that one prefetched ahead.
struct alignas(64) SimClient {
  explicit SimClient(Rng stream) : rng(stream) {}

  Rng rng;
  ItemState item;
  WorkItem work{-1, 0};
  PendingAnswer answer;  // while the provider takes its time
};
static_assert(sizeof(SimClient) == 64);

std::int32_t hint_seconds(std::int64_t retry_after_ns) {
  return static_cast<std::int32_t>(std::min<std::int64_t>(
      retry_after_seconds(retry_after_ns), std::numeric_limits<std::int32_t>::max()));
}

// Who a trace item is sent as: its line's tenant (a number for its key, 0 for none) and tokens.
struct TraceSender {
  std::uint32_t tenant = 0;
  std::optional<std::int64_t> tokens;
};

// Tenant keys by number, so each client's item holds four bytes rather than a string: a trace
// has far fewer tenants than lines. 0 is "", the tenant of a request with no key.
class TenantKeys {
 public:
  std::uint32_t id(const std::optional<std::string>& key) {
    if (!key) return 0;
    const auto [at, added] = ids_.try_emplace(*key, static_cast<std::uint32_t>(keys_.size()));
    if (added) keys_.push_back(*key);
    return at->second;
  }
  std::string_view key(std::uint32_t id) const { return keys_[id]; }

 private:
  std::vector<std::string> keys_{""};
  std::unordered_map<std::string, std::uint32_t> ids_;
};

// The limit each refusal reason names, as a live client reads it from the 429's body: the
// names compared once, not a string scan a 429.
TokenLimit limit_of(DecisionReason reason) {
  static const auto kByReason = [] {
    std::array<TokenLimit, kDecisionReasonCount> by{};
    for (std::size_t r = 0; r < kDecisionReasonCount; ++r)
      by[r] =
          limit_of_reason(to_string(static_cast<DecisionReason>(r))).value_or(TokenLimit::kOther);
    return by;
  }();
  return kByReason[static_cast<std::size_t>(reason)];
}

// What an admitted LLM answer holds until it ends, and the tokens it will have written then.
struct HeldAnswer {
  Reservation reservation;
  std::int64_t output_tokens = 0;
};

// How far ahead in the agenda the loop prefetches a client's state: enough events to cover a
// miss to memory.
constexpr std::size_t kPrefetchAhead = 16;

class Simulation {
 public:
  Simulation(const Scenario& s, const SimOptions& o)
      : scenario_(s),
        options_(o),
        life_(ItemLife::from(s.fleet)),
        provider_(s.provider),
        workload_(s.fleet, o.shard.count),
        schedule_(s.fleet),
        fleet_(s.fleet) {}

  Results run() {
    rec_.items = items_of(scenario_.fleet, options_.shard);
    if (scenario_.fleet.open_model()) {
      start_arrivals();
    } else {
      for (std::uint32_t c = 0; c < fleet_.size(); ++c) take_next_item(c, 0);
    }
    loop();
    if (!options_.played) return simulation_results(scenario_, std::move(rec_));
    // A trace played as it is read: its items are counted when the read ends.
    Scenario counted = scenario_;
    if (const auto total = options_.played->total())
      counted.fleet.items = std::min(counted.fleet.items.value_or(*total), *total);
    rec_.items = items_of(counted.fleet, options_.shard);
    return simulation_results(counted, std::move(rec_));
  }

 private:
  void loop() {
    SimProgressTicker progress(options_);
    while (!queue_.empty()) {
      // A bucket just opened: fetch for its first events together, not one miss after another.
      if (queue_.at_bucket_start()) {
        for (std::size_t k = 1; k < kPrefetchAhead; ++k) prefetch(k);
      }
      const TimedEvent e = queue_.top();
      if (e.t_ns > options_.horizon_ns) break;
      queue_.pop();
      prefetch(kPrefetchAhead);
      switch (static_cast<EventKind>(e.kind)) {
        case EventKind::kSend:
          send(e.client, e.t_ns);
          break;
        case EventKind::kAnswer:
          answer(e.client, e.t_ns, fleet_[e.client].answer);
          break;
        case EventKind::kArrival:
          arrive(e.client, e.t_ns);
          break;
      }
      progress.tick(e.t_ns, rec_);
    }
  }

  void prefetch(std::size_t ahead) {
    const TimedEvent* e = queue_.peek_ahead(ahead);
    if (e && static_cast<EventKind>(e->kind) != EventKind::kArrival)
      __builtin_prefetch(&fleet_[e->client]);
  }

  void schedule(std::uint32_t client, std::int64_t t_ns, EventKind kind) {
    queue_.push(t_ns, client, static_cast<std::uint8_t>(kind));
  }

  // Sharded: every client is simulated, only the shard's own are recorded.
  bool mine(std::uint32_t client) const { return options_.shard.owns(client); }

  // The open model, split as a sharded fleet runs it: arrival k belongs to shard k mod N and
  // takes a free client of that shard's (c mod N the same), so each shard simulates alike.
  void start_arrivals() {
    const auto groups = static_cast<std::uint32_t>(options_.shard.count);
    if (scenario_.fleet.workload == WorkloadKind::kTrace) rec_.trace.emplace();
    for (std::uint32_t g = 0; g < groups; ++g) {
      if (options_.played)
        streams_.emplace_back(schedule_, scenario_.fleet, nullptr, g, groups,
                              std::make_unique<PlayedArrivals::Reader>(*options_.played));
      else
        streams_.emplace_back(schedule_, scenario_.fleet, open_trace(scenario_.fleet), g, groups);
      pools_.emplace_back();
    }
    for (std::uint32_t c = 0; c < fleet_.size(); ++c) pools_[c % groups].release(c);
    for (std::uint32_t g = 0; g < groups; ++g) schedule_arrival(g);
    if (scenario_.fleet.workload == WorkloadKind::kTrace) senders_.resize(fleet_.size());
  }

  void schedule_arrival(std::uint32_t group) {
    if (const auto item = streams_[group].peek())
      schedule(group, item->intended_ns, EventKind::kArrival);
  }

  void arrive(std::uint32_t group, std::int64_t t_ns) {
    const WorkItem item = *streams_[group].peek();
    const TraceSender sender = trace_sender(streams_[group].peek_record());
    streams_[group].pop();
    schedule_arrival(group);
    const bool own = group == options_.shard.index;
    if (rec_.trace && own) rec_.trace->record_arrival(item.intended_ns);
    const auto c = pools_[group].take();
    if (!c) {
      rec_.dropped += own;  // every client of the group was busy
      return;
    }
    if (!senders_.empty()) senders_[*c] = sender;
    start_item(*c, item, t_ns);
  }

  TraceSender trace_sender(const TraceRecord* record) {
    if (!record) return {};
    return {tenant_keys_.id(record->tenant), record->tokens};
  }

  void take_next_item(std::uint32_t c, std::int64_t now_ns) {
    if (!pools_.empty()) return pools_[c % pools_.size()].release(c);
    const auto item = workload_.next(c, fleet_[c].work.id);
    if (!item) return;
    start_item(c, *item, now_ns);
  }

  void start_item(std::uint32_t c, const WorkItem& item, std::int64_t now_ns) {
    fleet_[c].work = item;
    schedule(c, life_.begin(now_ns, item, fleet_[c].item, nullptr, fleet_.guards(c)),
             EventKind::kSend);
  }

  void send(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = fleet_[c];
    // Dropped on the client by an adaptive throttle: no send, no arrival, a 429 all the same.
    const Step due = life_.on_send_due(t_ns, cl.item, nullptr, fleet_.guards(c), cl.rng);
    if (due.kind != Step::Kind::kSendNow) return follow(c, t_ns, due);
    if (model_refused_) return refuse_model(c, t_ns);
    const Decision d = admit(c, t_ns);
    const Seen seen = seen_of(c, t_ns, d);
    // Settled when the client reads the answer's end: the provider's last write, at once.
    if (d.reservation.held()) held_[c] = HeldAnswer{d.reservation, seen.tokens};
    if (records_tokens_ && mine(c)) record_tokens(c, t_ns, d, seen);
    if (mine(c)) {
      rec_.record_arrival(t_ns, cl.item.sends, d.outcome());
      rec_.record_send(t_ns, cl.item.sends, seen.outcome);
      if (rec_.trace && cl.item.sends == 1) {
        rec_.trace->record_first_send(t_ns);
        rec_.trace->record_lag(cl.work.intended_ns, t_ns);
      }
    }
    // The client reads a delta-seconds header: whole seconds, rounded up.
    const PendingAnswer a{seen.outcome, d.should_retry || seen.outcome == Outcome::kTimeout,
                          d.retry_after_ns ? hint_seconds(*d.retry_after_ns) : -1};
    if (seen.after_ns == 0) {
      answer(c, t_ns, a);
      return;
    }
    cl.answer = a;
    schedule(c, saturating_add(t_ns, seen.after_ns), EventKind::kAnswer);
  }

  // What the client reads of the provider's decision, and how long after its send: the
  // decision after its service time, a streamed answer at its end, or its timeout when that
  // comes first.
  struct Seen {
    Outcome outcome = Outcome::kOk;
    std::int64_t after_ns = 0;
    std::int64_t tokens = 0;  // an LLM answer's output tokens written by then
  };
  Seen seen_of(std::uint32_t c, std::int64_t t_ns, const Decision& d) {
    const std::int64_t timeout = scenario_.fleet.timeout_ns;
    if (d.service_ns > timeout) return {Outcome::kTimeout, timeout, 0};
    if (d.outcome() != Outcome::kOk) return {d.outcome(), d.service_ns, 0};
    if (scenario_.fleet.stream) return read_stream(c, t_ns, d.service_ns);
    // An LLM answer in one body: as long as the provider's draw for its number, all written
    // when it is answered.
    if (!llm_) return {Outcome::kOk, d.service_ns, 0};
    const ProviderConfig& p = scenario_.provider;
    return {
        Outcome::kOk, d.service_ns,
        plan_stream(p.stream, scenario_.fleet.max_tokens, p.seed, llm_answers_++).output_tokens};
  }

  // An admitted streamed answer (--stream), its head sent after the service time. Its length
  // and break are the provider's draws for the same request number: the provider numbers its
  // LLM answers as it sends their heads, here as they are admitted (the same order when the
  // service time is the same for all). Its times are the provider's pacing; recorded as the
  // live client records what it read, open from the send (t_ns) to its end.
  Seen read_stream(std::uint32_t c, std::int64_t t_ns, std::int64_t head_ns) {
    const ProviderConfig& p = scenario_.provider;
    const StreamPlan plan =
        plan_stream(p.stream, scenario_.fleet.max_tokens, p.seed, llm_answers_++);
    const StreamTimes times = stream_times(p.stream, plan);
    const std::int64_t timeout = scenario_.fleet.timeout_ns;
    const std::int64_t end = saturating_add(head_ns, times.end_ns);
    std::optional<std::int64_t> first_token;
    if (times.first_token_ns) first_token = saturating_add(head_ns, *times.first_token_ns);
    if (end > timeout) {
      // The client gives up mid-stream, with the tokens sent by then: a stream cut off.
      if (first_token > timeout) first_token.reset();
      const std::int64_t sent = tokens_sent_by(p.stream, plan, timeout - head_ns);
      if (mine(c)) {
        rec_.streams.record_open(t_ns, saturating_add(t_ns, timeout));
        rec_.streams.record(first_token, std::nullopt, sent);
      }
      return {Outcome::kTimeout, timeout, sent};
    }
    const bool broken = plan.break_after.has_value();
    if (mine(c)) {
      rec_.streams.record_open(t_ns, saturating_add(t_ns, end));
      rec_.streams.record(first_token, broken ? std::nullopt : std::optional(end), times.tokens);
    }
    return {broken ? broken_stream_outcome(p.dialect) : Outcome::kOk, end, times.tokens};
  }

  // provider.models_only and the fleet's model not listed: the provider answers 404 at once,
  // before any limit, and counts no arrival; the client never retries a 4xx.
  void refuse_model(std::uint32_t c, std::int64_t t_ns) {
    if (mine(c)) rec_.record_send(t_ns, fleet_[c].item.sends, Outcome::kClientError);
    answer(c, t_ns, PendingAnswer{Outcome::kClientError, false, -1});
  }

  // The token_limits section (docs/RESULTS.md) as a live client records it from what it reads:
  // a refusal by the limit that refused; an admitted LLM request's tokens at its send, and the
  // tokens it was written at its answer's end (its last token, its break, its timeout).
  void record_tokens(std::uint32_t c, std::int64_t t_ns, const Decision& d, const Seen& seen) {
    TokenRecording& t = rec_.tokens;
    if (d.outcome() == Outcome::kRateLimited) {
      t.record_refusal(t_ns, limit_of(d.reason));
      return;
    }
    if (!llm_ || d.outcome() != Outcome::kOk) return;
    const bool own_tokens = !senders_.empty() && senders_[c].tokens;
    t.record_admitted(t_ns, own_tokens ? *senders_[c].tokens : llm_->input_tokens,
                      llm_->max_tokens);
    t.record_settled(saturating_add(t_ns, seen.after_ns), seen.tokens, llm_->max_tokens);
  }

  // As the live provider would: by the tenant and tokens of a trace's item, the fleet's own
  // (no tenant key, --tokens) otherwise; a streamed fleet's requests charged as its LLM bodies.
  Decision admit(std::uint32_t c, std::int64_t t_ns) {
    if (senders_.empty()) return provider_.admit(t_ns, {}, tokens_, llm_);
    const TraceSender& s = senders_[c];
    if (!s.tokens) return provider_.admit(t_ns, tenant_of(c), tokens_, llm_);
    std::optional<LlmCharge> llm = llm_;
    if (llm) llm->input_tokens = *s.tokens;  // its line's, in the token header
    return provider_.admit(t_ns, tenant_of(c), DeclaredTokens{s.tokens, false}, llm);
  }

  std::string_view tenant_of(std::uint32_t c) const {
    return senders_.empty() ? std::string_view() : tenant_keys_.key(senders_[c].tenant);
  }

  // The answer the client reads now has ended at the provider: what it reserved and did not
  // write goes back now, as the live provider's data plane settles it at its last write.
  void settle(std::uint32_t c, std::int64_t t_ns) {
    const auto it = held_.find(c);
    if (it == held_.end()) return;
    provider_.settle_answer(t_ns, tenant_of(c), it->second.reservation, it->second.output_tokens);
    held_.erase(it);
  }

  void answer(std::uint32_t c, std::int64_t t_ns, PendingAnswer a) {
    auto& cl = fleet_[c];
    if (!held_.empty()) settle(c, t_ns);
    Answer answer{a.outcome, 0, std::nullopt, std::nullopt, std::nullopt};
    if (a.retry_after_s >= 0) answer.retry_after_ns = std::int64_t{a.retry_after_s} * kNsPerSec;
    if (!a.should_retry) answer.should_retry = false;
    follow(c, t_ns, life_.on_outcome(t_ns, answer, cl.item, nullptr, fleet_.guards(c), cl.rng));
  }

  // What the item life said: send again later, or the item's end and the client's next.
  void follow(std::uint32_t c, std::int64_t t_ns, const Step& step) {
    if (step.kind == Step::Kind::kRetryAt) {
      if (mine(c)) {
        rec_.backoff.add(t_ns, 0);
        rec_.backoff.add(step.at_ns, 1);
      }
      // Due after the horizon, it would never be sent: the item stays unfinished.
      if (step.at_ns <= options_.horizon_ns) schedule(c, step.at_ns, EventKind::kSend);
      return;
    }
    const auto& cl = fleet_[c];
    if (mine(c)) record_item_end(rec_, step, t_ns, cl.work.intended_ns, cl.item.sends);
    take_next_item(c, t_ns);
  }

  const Scenario& scenario_;
  const SimOptions& options_;
  const ItemLife life_;
  ProviderPolicy provider_;
  std::uint64_t llm_answers_ = 0;  // the LLM answers admitted so far
  const DeclaredTokens tokens_ = fleet_declared_tokens(scenario_);
  const std::optional<LlmCharge> llm_ = fleet_llm_charge(scenario_);
  const bool model_refused_ = llm_ && route_model(scenario_.provider, llm_->model).refused;
  const bool records_tokens_ = records_token_limits(scenario_, sends_llm_requests(scenario_));
  // By client: the admitted LLM answers still open that hold a reservation (few at a time).
  std::unordered_map<std::uint32_t, HeldAnswer> held_;
  Workload workload_;
  const ArrivalSchedule schedule_;
  std::vector<OpenArrivals> streams_;  // the open model only: one per shard
  std::vector<ClientPool> pools_;      // the free clients of each
  std::vector<TraceSender> senders_;   // the trace workload: by client, who its item is sent as
  TenantKeys tenant_keys_;
  SimFleet<SimClient> fleet_;
  EventQueue queue_;
  Recording rec_;
};

}  // namespace

Results simulation_results(const Scenario& scenario, Recording rec) {
  rec.unfinished = rec.items - rec.delivered - rec.dead_lettered - rec.dropped;
  Results r;
  r.engine = "simulate";
  r.scenario = scenario;
  r.provider_side = true;
  r.summary = summarize(rec, scenario.provider, true);
  r.recording = std::move(rec);
  return r;
}

Results simulate(const Scenario& scenario, const SimOptions& options) {
  return Simulation(scenario, options).run();
}

}  // namespace stampede
