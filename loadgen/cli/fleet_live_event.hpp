#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "cli/progress_line.hpp"
#include "live/engine.hpp"
#include "live/provider_admin.hpp"
#include "rate.hpp"
#include "scenario.hpp"

namespace stampede {

// The fleet's side of the live dashboard (loadgen run --dashboard): the run's progress
// snapshots, taken once a second, as events of the shape fakeprovider's /admin/live sends
// (docs/ADMIN_API.md), which the same page draws: the answers the clients read, per second
// by outcome, and the fleet's items. Pure: the caller takes the snapshots. Every event holds
// every bin (from_bin 0), no tenants and no lockstep.
class FleetLiveBins {
 public:
  explicit FleetLiveBins(double time_scale) : time_scale_(time_scale) {}

  // The answers read since the last snapshot, in the bin of its scenario time (snapshots a
  // second apart: each second's answers in its own bin).
  void add(const LiveProgress& now);
  const BinnedCounts& by_outcome() const { return by_outcome_; }

  // Every bin so far (from_bin 0) and the fleet's figures. allowance and outages: the
  // scenario's, as the report draws them.
  nlohmann::json event(std::uint64_t seq, const std::optional<Rate>& allowance,
                       const std::vector<OutageWindow>& outages) const;

 private:
  double time_scale_;
  LiveProgress last_;
  BinnedCounts by_outcome_{1'000'000'000, kOutcomeCount};
};

// loadgen exec --dashboard: the provider's counts (every arrival there is the fleet's: exec
// resets it at the release) and the processes' ends, as the progress line counts them.
nlohmann::json exec_live_event(const ProviderStats& stats, const ExecProgress& progress,
                               std::uint64_t seq, const std::optional<Rate>& allowance,
                               const std::vector<OutageWindow>& outages);

}  // namespace stampede
