#include "sim/occ_sim.hpp"

#include <vector>

#include "model/provider_policy.hpp"
#include "model/versioned_row.hpp"
#include "policy/occ_cycle.hpp"
#include "policy/retry_policy.hpp"
#include "policy/workload.hpp"
#include "saturating.hpp"
#include "sim/event_queue.hpp"

namespace stampede {
namespace {

// A request's two ends: it reaches the provider, then its answer reaches the client.
enum class OccEvent : std::uint8_t { kArrives, kAnswered };

struct OccClient {
  explicit OccClient(Rng stream) : rng(stream) {}
  Rng rng;
  ItemState item;
  OccCycle cycle;
  std::int64_t item_id = -1;
  std::int64_t intended_ns = 0;
  std::int32_t sends = 0;
  std::int64_t sent_ns = 0;  // when the request in flight left the client
  // Its answer, decided on arrival, on its way back.
  int status = 0;
  Outcome outcome = Outcome::kOk;
  std::uint64_t version = 0;  // a read's
  std::int64_t retry_after_ns = -1;
};

class OccSimulation {
 public:
  OccSimulation(const Scenario& s, const SimOptions& o)
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
    for (std::size_t c = 0; c < n; ++c) clients_.emplace_back(make_stream(scenario_.fleet.seed, c));
    if (per_client_guards_) guards_.assign(n, shared_guards_);
    rec_.items = workload_.total();
    for (std::uint32_t c = 0; c < n; ++c) take_next_item(c, 0);
    loop();
    return simulation_results(scenario_, std::move(rec_));
  }

 private:
  void loop() {
    SimProgressTicker progress(options_);
    while (!queue_.empty()) {
      const TimedEvent e = queue_.top();
      if (e.t_ns > options_.horizon_ns) break;
      queue_.pop();
      if (static_cast<OccEvent>(e.kind) == OccEvent::kArrives) {
        arrive(e.client, e.t_ns);
      } else {
        answered(e.client, e.t_ns);
      }
      progress.tick(e.t_ns, rec_);
    }
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
    cl.cycle = OccCycle{};
    cl.sends = 0;
    std::int64_t at = std::max(now_ns, item->intended_ns);
    at = RetryPolicy::send_at(at, guards(c));
    send(c, at);
  }

  // The client sends its next request (the cycle says which) at t_ns; it arrives a hop later.
  void send(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = clients_[c];
    if (cl.sends++ == 0) cl.item.start_ns = t_ns;
    if (cl.cycle.writing) ++rec_.writes;
    cl.sent_ns = t_ns;
    queue_.push(saturating_add(t_ns, draw_hop_ns(scenario_.fleet.hop_delay, cl.rng)), c,
                static_cast<std::uint8_t>(OccEvent::kArrives));
  }

  // The provider's layers first, as for any request; then the row, at this very moment.
  void arrive(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = clients_[c];
    const Decision d = provider_.admit(t_ns, {});
    cl.status = d.status;
    if (d.status == 200) {
      if (cl.cycle.writing) {
        cl.status = row_.try_write(cl.cycle.version) ? 200 : 412;
      } else {
        cl.version = row_.version();
      }
    }
    cl.outcome = d.reset_connection ? Outcome::kConnectError : classify_status(cl.status);
    rec_.record_arrival(t_ns, cl.sends, cl.outcome);
    // The client reads a delta-seconds header: whole seconds, rounded up.
    cl.retry_after_ns =
        d.retry_after_ns ? saturating_mul(retry_after_seconds(*d.retry_after_ns), kNsPerSec) : -1;
    queue_.push(
        saturating_add(
            t_ns, saturating_add(d.service_ns, draw_hop_ns(scenario_.fleet.hop_delay, cl.rng))),
        c, static_cast<std::uint8_t>(OccEvent::kAnswered));
  }

  void answered(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = clients_[c];
    rec_.record_send(cl.sent_ns, cl.sends, cl.outcome);
    std::optional<std::int64_t> hint;
    if (cl.retry_after_ns >= 0) hint = cl.retry_after_ns;
    std::optional<std::uint64_t> version;
    if (!cl.cycle.writing && cl.status == 200) version = cl.version;
    const OccStep next = occ_on_answer(policy_, cl.cycle, t_ns, cl.outcome, cl.status, version,
                                       hint, cl.item, guards(c), cl.rng);
    if (next.write_now) return send(c, t_ns);
    switch (next.step.kind) {
      case Step::Kind::kRetryAt:
        rec_.backoff.add(t_ns, 0);
        rec_.backoff.add(next.step.at_ns, 1);
        // Due after the horizon, it would never be sent: the item stays unfinished.
        if (next.step.at_ns <= options_.horizon_ns) send(c, next.step.at_ns);
        return;
      case Step::Kind::kDone:
        ++rec_.delivered;
        rec_.item_latency_ns.record(t_ns - cl.intended_ns);
        rec_.drain_ns = std::max(rec_.drain_ns, t_ns);
        break;
      case Step::Kind::kDeadLetter:
        ++rec_.dead_lettered;
        ++rec_.dead_letter_reasons[std::string(to_string(next.step.reason))];
        break;
    }
    rec_.sends_per_item.record(cl.sends);
    take_next_item(c, t_ns);
  }

  const Scenario& scenario_;
  const SimOptions& options_;
  const RetryPolicy policy_;
  ProviderPolicy provider_;
  VersionedRow row_;
  Workload workload_;
  ClientGuards shared_guards_;
  bool per_client_guards_;
  std::vector<ClientGuards> guards_;
  std::vector<OccClient> clients_;
  EventQueue queue_;
  Recording rec_;
};

}  // namespace

Results simulate_occ(const Scenario& scenario, const SimOptions& options) {
  return OccSimulation(scenario, options).run();
}

}  // namespace stampede
