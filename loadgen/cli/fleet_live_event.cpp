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

json FleetLiveBins::event(std::uint64_t seq, const std::optional<Rate>& allowance,
                          const std::vector<OutageWindow>& outages) const {
  const LiveProgress& p = last_;
  const std::int64_t answered = p.ok + p.rate_limited + p.server_errors + p.errors;
  return {{"seq", seq},
          {"clock_ns", std::llround(static_cast<double>(p.elapsed_ns) / time_scale_)},
          {"time_scale", time_scale_},
          {"bin_ms", 1000},
          {"from_bin", 0},
          {"arrivals_by_outcome", by_outcome_.to_json(outcome_labels())},
          {"arrivals_by_send", {{"labels", send_labels()}, {"counts", json::array()}}},
          {"requests", p.sent},
          {"admitted", p.ok},
          {"refused", answered - p.ok},
          {"fleet",
           {{"delivered", p.delivered},
            {"dead_lettered", p.dead_lettered},
            {"in_backoff", p.in_backoff},
            {"in_flight", p.sent - answered}}},
          {"top_tenants", json::array()},
          {"lockstep", nullptr},
          {"allowance", live_rate_json(allowance)},
          {"capacity", nullptr},
          {"outages", live_outages_json(outages)}};
}

}  // namespace stampede
