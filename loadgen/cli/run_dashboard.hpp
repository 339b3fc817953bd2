#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "cli/fleet_dashboard.hpp"
#include "cli/provider_poller.hpp"
#include "cli/run_command.hpp"
#include "live/engine.hpp"
#include "live/provider_admin.hpp"
#include "parsed.hpp"
#include "results.hpp"

namespace stampede {

// loadgen run --dashboard's driver, from the engine's start to the run's end: once a wall
// second, the page's event of the fleet's recording so far and the provider's stats as last
// read (--provider-admin, read on a thread of its own); and the page's "save", the report of
// the results so far. Without a dashboard it does nothing.
class RunDashboard {
 public:
  // The results of the recording so far, as the run's end makes them but for its verdicts:
  // the recording, the wall seconds since t = 0, the provider's stats as last read.
  using MakeResults =
      std::function<Results(Recording, double, const std::optional<Parsed<ProviderStats>>&)>;

  RunDashboard(FleetDashboard* dashboard, const RunCommand& cmd, const LiveEngine& engine,
               const ProviderAdmin* admin, MakeResults make_results);
  // Takes the save away before what it reads is gone.
  ~RunDashboard();
  RunDashboard(const RunDashboard&) = delete;
  RunDashboard& operator=(const RunDashboard&) = delete;

  std::int64_t until_due_ns(std::int64_t now_ns) const;
  // The event, when one is due (or, last, the run's final one).
  void tick(std::int64_t now_ns, bool last = false);

 private:
  Parsed<Results> results_so_far() const;
  std::optional<Parsed<ProviderStats>> provider() const;

  FleetDashboard* dashboard_;
  const RunCommand& cmd_;
  const LiveEngine& engine_;
  MakeResults make_results_;
  std::unique_ptr<ProviderPoller> poller_;
  std::int64_t next_ns_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace stampede
