#include "cli/fleet_live_event.hpp"

#include <cmath>

#include "live_fields.hpp"
#include "outcome.hpp"
#include "results.hpp"

namespace stampede {

using json = nlohmann::json;

void FleetLiveBins::add(const LiveProgress& now) {
  // Read between the two snapshots: binned at the first, as a second's answers are at its start.
  const auto t_ns = std::llround(static_cast<double>(last_.elapsed_ns) / time_scale_);
  // The progress counts answers in four kinds: each goes to the label its layer draws.
  const std::pair<std::int64_t LiveProgress::*, Outcome> kinds[] = {
      {&LiveProgress::ok, Outcome::kOk},
      {&LiveProgress::rate_limited, Outcome::kRateLimited},
      {&LiveProgress::server_errors, Outcome::kServerError},
      {&LiveProgress::errors, Outcome::kConnectError}};
  for (const auto& [count, outcome] : kinds) {
    const std::int64_t answered = now.*count - last_.*count;
    if (answered > 0) by_outcome_.add(t_ns, static_cast<std::size_t>(outcome), answered);
  }
  last_ = now;
}

namespace {

// What both fleet commands' events hold, of the shape /admin/live's are.
struct FleetEvent {
  std::int64_t clock_ns;
  const BinnedCounts& by_outcome;
  const BinnedCounts* by_send;  // none: the sends' numbers are not known live
  std::int64_t requests;
  json fleet;
};

json fleet_event(const FleetEvent& f, std::uint64_t seq, const std::optional<Rate>& allowance,
                 const std::vector<OutageWindow>& outages) {
  std::int64_t admitted = 0, all = 0;
  for (std::size_t b = 0; b < f.by_outcome.bins(); ++b) {
    admitted += f.by_outcome.at(b, static_cast<std::size_t>(Outcome::kOk));
    all += f.by_outcome.bin_total(b);
  }
  const json by_send = f.by_send ? f.by_send->to_json(send_labels())
                                 : json{{"labels", send_labels()}, {"counts", json::array()}};
  return {{"seq", seq},
          {"clock_ns", f.clock_ns},
          {"bin_ms", f.by_outcome.bin_ns() / kNsPerMs},
          {"from_bin", 0},
          {"arrivals_by_outcome", f.by_outcome.to_json(outcome_labels())},
          {"arrivals_by_send", by_send},
          {"requests", f.requests},
          {"admitted", admitted},
          {"refused", all - admitted},
          {"fleet", f.fleet},
          {"top_tenants", json::array()},
          {"lockstep", nullptr},
          {"allowance", live_rate_json(allowance)},
          {"capacity", nullptr},
          {"outages", live_outages_json(outages)}};
}

}  // namespace

json FleetLiveBins::event(std::uint64_t seq, const std::optional<Rate>& allowance,
                          const std::vector<OutageWindow>& outages) const {
  const LiveProgress& p = last_;
  const std::int64_t answered = p.ok + p.rate_limited + p.server_errors + p.errors;
  return fleet_event({std::llround(static_cast<double>(p.elapsed_ns) / time_scale_),
                      by_outcome_,
                      nullptr,
                      p.sent,
                      {{"delivered", p.delivered},
                       {"dead_lettered", p.dead_lettered},
                       {"in_backoff", p.in_backoff},
                       {"in_flight", p.sent - answered}}},
                     seq, allowance, outages);
}

json exec_live_event(const ProviderStats& stats, const ExecProgress& progress, std::uint64_t seq,
                     const std::optional<Rate>& allowance,
                     const std::vector<OutageWindow>& outages) {
  return fleet_event({stats.clock_ns,
                      stats.by_outcome,
                      &stats.by_send,
                      stats.requests,
                      {{"delivered", progress.delivered},
                       {"dead_lettered", progress.dead_lettered},
                       {"processes_running", progress.running},
                       {"processes_ended", progress.ended}}},
                     seq, allowance, outages);
}

}  // namespace stampede
