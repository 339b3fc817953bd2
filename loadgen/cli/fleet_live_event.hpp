#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/progress_line.hpp"
#include "live/engine.hpp"
#include "live/provider_admin.hpp"
#include "parsed.hpp"
#include "rate.hpp"
#include "results.hpp"
#include "scenario.hpp"

namespace stampede {

// The fleet's side of the live dashboard (loadgen run/exec --dashboard): events of the shape
// fakeprovider's /admin/live sends (docs/ADMIN_API.md), which the same page draws. Pure: the
// caller reads the run. Every event holds every bin (from_bin 0), no tenants, no lockstep,
// and the page's charts of them (live_panels): the caller makes each once for every stream.

// What loadgen run's event is made of, once a second.
struct RunLiveView {
  // The clients' recording so far (LiveEngine::recording_so_far): their answers by outcome
  // and their sends by send number, binned at the send as the report bins them, and the
  // loops' wake lateness.
  const Recording& recording;
  const LiveProgress& progress;  // the items' counts, now
  double time_scale = 1;
  // --provider-admin's stats as last read, or why not; none without the flag or before the
  // first reading.
  const std::optional<Parsed<ProviderStats>>& provider;
};

nlohmann::json run_live_event(const RunLiveView& view, std::uint64_t seq,
                              const std::optional<Rate>& allowance,
                              const std::vector<OutageWindow>& outages);

// The provider's view in a fleet's event: its arrivals per second by outcome and by send
// number, its totals; or {"error": why} when it could not be read.
nlohmann::json provider_view_json(const Parsed<ProviderStats>& stats);

// How late the loops woke for their sends, so far: {"sends", "p50_ms", "p99_ms", "max_ms"}.
nlohmann::json wake_lateness_json(const LogHistogram& lateness_ns);

// loadgen exec --dashboard: the provider's counts (every arrival there is the fleet's: exec
// resets it at the release) and the processes' ends, as the progress line counts them.
nlohmann::json exec_live_event(const ProviderStats& stats, const ExecProgress& progress,
                               std::uint64_t seq, const std::optional<Rate>& allowance,
                               const std::vector<OutageWindow>& outages);

}  // namespace stampede
