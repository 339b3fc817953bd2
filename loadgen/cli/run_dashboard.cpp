#include "cli/run_dashboard.hpp"

#include "cli/fleet_live_event.hpp"
#include "live_fields.hpp"

namespace stampede {
namespace {

// How long an event waits for the loops' copies of their recordings: a loop answers when it
// next wakes (it is woken for it), so only a loop stuck in a burst misses a second's event.
constexpr std::int64_t kEventWaitNs = kNsPerSec;
// How long a save waits for them: longer, as someone asked for it.
constexpr std::int64_t kSaveWaitNs = 5 * kNsPerSec;

}  // namespace

RunDashboard::RunDashboard(FleetDashboard* dashboard, const RunCommand& cmd,
                           const LiveEngine& engine, const ProviderAdmin* admin,
                           MakeResults make_results)
    : dashboard_(dashboard), cmd_(cmd), engine_(engine), make_results_(std::move(make_results)) {
  if (!dashboard_) return;
  if (admin) poller_ = std::make_unique<ProviderPoller>(*admin, kNsPerSec);
  dashboard_->set_results_source([this] { return results_so_far(); });
}

RunDashboard::~RunDashboard() {
  if (dashboard_) dashboard_->set_results_source(nullptr);
}

std::int64_t RunDashboard::until_due_ns(std::int64_t now_ns) const {
  return dashboard_ ? std::max<std::int64_t>(0, next_ns_ - now_ns) : kNsPerSec;
}

std::optional<Parsed<ProviderStats>> RunDashboard::provider() const {
  return poller_ ? poller_->latest() : std::nullopt;
}

void RunDashboard::tick(std::int64_t now_ns, bool last) {
  if (!dashboard_ || (now_ns < next_ns_ && !last)) return;
  next_ns_ = now_ns + kNsPerSec;
  const auto recording = engine_.recording_so_far(kEventWaitNs);
  if (!recording) return;  // the next tick, or the last, has it
  const LiveProgress progress = engine_.progress();
  const auto provider_stats = provider();
  const auto& limits = cmd_.scenario.provider;
  ++seq_;
  dashboard_->publish(live_sse_message(
      run_live_event({*recording, progress, cmd_.options.time_scale, provider_stats}, seq_,
                     limits.allowance, limits.outages),
      seq_));
}

Parsed<Results> RunDashboard::results_so_far() const {
  auto recording = engine_.recording_so_far(kSaveWaitNs);
  if (!recording)
    return Parsed<Results>::fail("the fleet's loops did not hand over their recordings in time");
  const double wall_s = static_cast<double>(engine_.progress().elapsed_ns) / 1e9;
  return Parsed<Results>::ok(make_results_(std::move(*recording), wall_s, provider()));
}

}  // namespace stampede
