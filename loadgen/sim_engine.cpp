#include "sim_engine.hpp"

#include <chrono>
#include <vector>

#include "event_queue.hpp"
#include "provider_policy.hpp"
#include "retry_policy.hpp"
#include "workload.hpp"

namespace stampede {
namespace {

enum class EventKind : std::uint8_t { kSend, kAnswer };

struct SimClient {
  Rng rng;
  ItemState item;
  std::int64_t item_id = -1;
  std::int64_t intended_ns = 0;
  std::int32_t sends = 0;
  Outcome answer = Outcome::kOk;  // pending while the provider takes its time
  std::int64_t answer_retry_after_ns = -1;
};

class Simulation {
 public:
  Simulation(const Scenario& s, const SimOptions& o)
      : scenario_(s),
        options_(o),
        policy_(RetryPolicy::from(s.fleet)),
        provider_(s.provider),
        workload_(s.fleet),
        shared_guards_(RetryPolicy::make_guards(s.fleet)),
        per_client_guards_(shared_guards_.any()) {}

  Results run() {
    const auto n = static_cast<std::size_t>(scenario_.fleet.clients);
    clients_.reserve(n);
    for (std::size_t c = 0; c < n; ++c)
      clients_.push_back({make_stream(scenario_.fleet.seed, c), {}});
    if (per_client_guards_) guards_.assign(n, shared_guards_);
    rec_.items = workload_.total();
    for (std::uint32_t c = 0; c < n; ++c) take_next_item(c, 0);
    loop();
    rec_.unfinished = rec_.items - rec_.delivered - rec_.dead_lettered;
    Results r;
    r.engine = "simulate";
    r.scenario = scenario_;
    r.provider_side = true;
    r.summary = summarize(rec_, scenario_.provider, true);
    r.recording = std::move(rec_);
    return r;
  }

 private:
  void loop() {
    auto last_report = std::chrono::steady_clock::now();
    std::int64_t events = 0;
    while (!queue_.empty()) {
      const TimedEvent e = queue_.top();
      if (e.t_ns > options_.horizon_ns) break;
      queue_.pop();
      if (static_cast<EventKind>(e.kind) == EventKind::kSend) {
        send(e.client, e.t_ns);
      } else {
        answer(e.client, e.t_ns);
      }
      if (options_.progress && (++events & 0xFFFF) == 0) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report >= std::chrono::seconds(1)) {
          last_report = now;
          options_.progress(
              {e.t_ns, rec_.requests, rec_.delivered + rec_.dead_lettered, rec_.items});
        }
      }
    }
  }

  void schedule(std::uint32_t client, std::int64_t t_ns, EventKind kind) {
    queue_.push(t_ns, client, static_cast<std::uint8_t>(kind));
  }

  ClientGuards& guards(std::uint32_t client) {
    return per_client_guards_ ? guards_[client] : shared_guards_;
  }

  void take_next_item(std::uint32_t c, std::int64_t now_ns) {
    auto& cl = clients_[c];
    const auto item = workload_.next(c, cl.item_id);
    if (!item) return;
    cl.item_id = item->id;
    cl.intended_ns = item->intended_ns;
    cl.item = ItemState{};
    cl.sends = 0;
    std::int64_t at = std::max(now_ns, item->intended_ns);
    at = RetryPolicy::send_at(at, guards(c));
    schedule(c, at, EventKind::kSend);
  }

  void send(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = clients_[c];
    if (cl.item.retries == 0) cl.item.start_ns = t_ns;
    if (RetryPolicy::rejects_locally(t_ns, guards(c), cl.rng)) {
      cl.answer = Outcome::kRateLimited;  // dropped on the client: no send, no arrival
      cl.answer_retry_after_ns = -1;
      return answer(c, t_ns);
    }
    ++cl.sends;
    const Decision d = provider_.admit(t_ns, {});
    const Outcome seen =
        d.service_ns > scenario_.fleet.timeout_ns ? Outcome::kTimeout : d.outcome();
    rec_.record_arrival(t_ns, cl.sends, d.outcome());
    rec_.record_send(t_ns, seen);
    cl.answer = seen;
    // The client reads a delta-seconds header: whole seconds, rounded up.
    cl.answer_retry_after_ns =
        d.retry_after_ns >= 0 ? retry_after_seconds(d.retry_after_ns) * kNsPerSec : -1;
    const std::int64_t wait = seen == Outcome::kTimeout ? scenario_.fleet.timeout_ns : d.service_ns;
    if (wait == 0) {
      answer(c, t_ns);
    } else {
      schedule(c, t_ns + wait, EventKind::kAnswer);
    }
  }

  void answer(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = clients_[c];
    std::optional<std::int64_t> hint;
    if (cl.answer_retry_after_ns >= 0) hint = cl.answer_retry_after_ns;
    const Step step = policy_.on_outcome(t_ns, cl.answer, hint, cl.item, guards(c), cl.rng);
    switch (step.kind) {
      case Step::Kind::kRetryAt:
        rec_.backoff.add(t_ns, 0);
        rec_.backoff.add(step.at_ns, 1);
        schedule(c, step.at_ns, EventKind::kSend);
        return;
      case Step::Kind::kDone:
        ++rec_.delivered;
        rec_.item_latency_ns.record(t_ns - cl.intended_ns);
        rec_.drain_ns = std::max(rec_.drain_ns, t_ns);
        break;
      case Step::Kind::kDeadLetter:
        ++rec_.dead_lettered;
        break;
    }
    rec_.sends_per_item.record(cl.sends);
    take_next_item(c, t_ns);
  }

  const Scenario& scenario_;
  const SimOptions& options_;
  const RetryPolicy policy_;
  ProviderPolicy provider_;
  Workload workload_;
  ClientGuards shared_guards_;
  bool per_client_guards_;
  std::vector<ClientGuards> guards_;
  std::vector<SimClient> clients_;
  EventQueue queue_;
  Recording rec_;
};

}  // namespace

Results simulate(const Scenario& scenario, const SimOptions& options) {
  return Simulation(scenario, options).run();
}

}  // namespace stampede
