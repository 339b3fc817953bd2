#include "sim/occ_sim.hpp"

#include <vector>

#include "model/provider_policy.hpp"
#include "model/versioned_row.hpp"
#include "policy/item_life.hpp"
#include "policy/shard.hpp"
#include "policy/workload.hpp"
#include "saturating.hpp"
#include "sim/event_queue.hpp"
#include "sim/sim_fleet.hpp"

namespace stampede {
namespace {

// A send falling due, then a request's two ends: it reaches the provider, then its answer
// reaches the client.
enum class OccEvent : std::uint8_t { kSend, kArrives, kAnswered };

struct OccClient {
  explicit OccClient(Rng stream) : rng(stream) {}
  Rng rng;
  ItemState item;
  OccCycle cycle;
  WorkItem work{-1, 0};
  std::int64_t sent_ns = 0;  // when the request in flight left the client
  // Its answer, decided on arrival, on its way back.
  int status = 0;
  Outcome outcome = Outcome::kOk;
  std::uint64_t version = 0;  // a read's
  std::int64_t retry_after_ns = -1;
  bool should_retry = true;  // the provider's x-should-retry: false (a spend cap)
};

class OccSimulation {
 public:
  OccSimulation(const Scenario& s, const SimOptions& o)
      : scenario_(s),
        options_(o),
        life_(ItemLife::from(s.fleet)),
        provider_(s.provider),
        workload_(s.fleet, o.shard.count),
        fleet_(s.fleet) {}

  Results run() {
    rec_.items = items_of(scenario_.fleet, options_.shard);
    for (std::uint32_t c = 0; c < fleet_.size(); ++c) take_next_item(c, 0);
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
      switch (static_cast<OccEvent>(e.kind)) {
        case OccEvent::kSend:
          send(e.client, e.t_ns);
          break;
        case OccEvent::kArrives:
          arrive(e.client, e.t_ns);
          break;
        case OccEvent::kAnswered:
          answered(e.client, e.t_ns);
          break;
      }
      progress.tick(e.t_ns, rec_);
    }
  }

  // Sharded: every client is simulated, as the row and the provider see the whole fleet; only
  // the shard's own are recorded.
  bool mine(std::uint32_t client) const { return options_.shard.owns(client); }

  void push(std::uint32_t c, std::int64_t t_ns, OccEvent kind) {
    queue_.push(t_ns, c, static_cast<std::uint8_t>(kind));
  }

  void take_next_item(std::uint32_t c, std::int64_t now_ns) {
    auto& cl = fleet_[c];
    const auto item = workload_.next(c, cl.work.id);
    if (!item) return;
    cl.work = *item;
    push(c, life_.begin(now_ns, *item, cl.item, &cl.cycle, fleet_.guards(c)), OccEvent::kSend);
  }

  // The client's next request (the cycle says which) falls due at t_ns; it arrives a hop later.
  void send(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = fleet_[c];
    const bool write = cl.cycle.writing;
    const Step due = life_.on_send_due(t_ns, cl.item, &cl.cycle, fleet_.guards(c), cl.rng);
    if (due.kind != Step::Kind::kSendNow) return follow(c, t_ns, due);
    if (write && mine(c)) ++rec_.writes;
    cl.sent_ns = t_ns;
    push(c, saturating_add(t_ns, draw_hop_ns(scenario_.fleet.hop_delay, cl.rng)),
         OccEvent::kArrives);
  }

  // The provider's layers first, as for any request; then the row, at this very moment.
  void arrive(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = fleet_[c];
    const Decision d = provider_.admit(t_ns, {}, tokens_);
    cl.status = d.status;
    if (d.status == 200) {
      if (cl.cycle.writing) {
        cl.status = row_.try_write(cl.cycle.version) ? 200 : 412;
      } else {
        cl.version = row_.version();
      }
    }
    cl.outcome = d.reset_connection ? Outcome::kConnectError : classify_status(cl.status);
    cl.should_retry = d.should_retry;
    if (mine(c)) rec_.record_arrival(t_ns, cl.item.sends, cl.outcome);
    // The client reads a delta-seconds header: whole seconds, rounded up.
    cl.retry_after_ns =
        d.retry_after_ns ? saturating_mul(retry_after_seconds(*d.retry_after_ns), kNsPerSec) : -1;
    push(c,
         saturating_add(
             t_ns, saturating_add(d.service_ns, draw_hop_ns(scenario_.fleet.hop_delay, cl.rng))),
         OccEvent::kAnswered);
  }

  void answered(std::uint32_t c, std::int64_t t_ns) {
    auto& cl = fleet_[c];
    if (mine(c)) rec_.record_send(cl.sent_ns, cl.item.sends, cl.outcome);
    Answer answer{cl.outcome, cl.status, std::nullopt, std::nullopt, std::nullopt};
    if (cl.retry_after_ns >= 0) answer.retry_after_ns = cl.retry_after_ns;
    if (!cl.should_retry) answer.should_retry = false;
    if (!cl.cycle.writing && cl.status == 200) answer.version = cl.version;
    follow(c, t_ns, life_.on_outcome(t_ns, answer, cl.item, &cl.cycle, fleet_.guards(c), cl.rng));
  }

  // What the item life said: the write now, a read again later, or the item's end.
  void follow(std::uint32_t c, std::int64_t t_ns, const Step& step) {
    switch (step.kind) {
      case Step::Kind::kSendNow:
        return send(c, t_ns);
      case Step::Kind::kRetryAt:
        if (mine(c)) {
          rec_.backoff.add(t_ns, 0);
          rec_.backoff.add(step.at_ns, 1);
        }
        // Due after the horizon, it would never be sent: the item stays unfinished.
        if (step.at_ns <= options_.horizon_ns) push(c, step.at_ns, OccEvent::kSend);
        return;
      case Step::Kind::kDone:
      case Step::Kind::kDeadLetter:
        break;
    }
    if (mine(c))
      record_item_end(rec_, step, t_ns, fleet_[c].work.intended_ns, fleet_[c].item.sends);
    take_next_item(c, t_ns);
  }

  const Scenario& scenario_;
  const SimOptions& options_;
  const ItemLife life_;
  ProviderPolicy provider_;
  const DeclaredTokens tokens_{scenario_.fleet.tokens, false};  // what every request declares
  VersionedRow row_;
  Workload workload_;
  SimFleet<OccClient> fleet_;
  EventQueue queue_;
  Recording rec_;
};

}  // namespace

Results simulate_occ(const Scenario& scenario, const SimOptions& options) {
  return OccSimulation(scenario, options).run();
}

}  // namespace stampede
