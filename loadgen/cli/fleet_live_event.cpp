#include "cli/fleet_live_event.hpp"

#include <cmath>

#include "live_fields.hpp"
#include "live_page.hpp"
#include "outcome.hpp"

namespace stampede {

using json = nlohmann::json;

namespace {

// Admitted and every other answer, over all the bins.
std::pair<std::int64_t, std::int64_t> admitted_and_refused(const BinnedCounts& by_outcome) {
  std::int64_t admitted = 0, all = 0;
  for (std::size_t b = 0; b < by_outcome.bins(); ++b) {
    admitted += by_outcome.at(b, static_cast<std::size_t>(Outcome::kOk));
    all += by_outcome.bin_total(b);
  }
  return {admitted, all - admitted};
}

// What both fleet commands' events hold, of the shape /admin/live's are.
struct FleetEvent {
  std::int64_t clock_ns;
  const BinnedCounts& by_outcome;
  const BinnedCounts& by_send;
  bool provider_side;  // the provider's counts (exec), else the clients' (run)
  std::int64_t requests;
  json fleet;
};

// The declared limits the page's charts draw over the counts.
ProviderConfig drawn_limits(const std::optional<Rate>& allowance,
                            const std::vector<OutageWindow>& outages) {
  ProviderConfig limits;
  limits.allowance = allowance;
  limits.outages = outages;
  return limits;
}

json fleet_event(const FleetEvent& f, std::uint64_t seq, const std::optional<Rate>& allowance,
                 const std::vector<OutageWindow>& outages) {
  const auto [admitted, refused] = admitted_and_refused(f.by_outcome);
  const ProviderConfig limits = drawn_limits(allowance, outages);
  return {{"seq", seq},
          {"clock_ns", f.clock_ns},
          {"bin_ms", f.by_outcome.bin_ns() / kNsPerMs},
          {"from_bin", 0},
          {"arrivals_by_outcome", f.by_outcome.to_json(outcome_labels())},
          {"arrivals_by_send", f.by_send.to_json(send_labels())},
          {"requests", f.requests},
          {"admitted", admitted},
          {"refused", refused},
          {"pace", live_pace_json(live_pace(f.by_outcome, f.clock_ns, limits))},
          {"fleet", f.fleet},
          {"top_tenants", json::array()},
          {"lockstep", nullptr},
          {"allowance", live_rate_json(allowance)},
          {"capacity", nullptr},
          {"outages", live_outages_json(outages)},
          {"panels", live_panels({f.by_outcome, f.by_send, f.clock_ns, f.provider_side}, limits)}};
}

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / kNsPerMs;
}

}  // namespace

json wake_lateness_json(const LogHistogram& lateness_ns) {
  return {{"sends", lateness_ns.count()},
          {"p50_ms", ms(lateness_ns.quantile(0.5))},
          {"p99_ms", ms(lateness_ns.quantile(0.99))},
          {"max_ms", ms(lateness_ns.max())}};
}

json provider_view_json(const Parsed<ProviderStats>& stats) {
  if (!stats) return {{"error", stats.error()}};
  const auto [admitted, refused] = admitted_and_refused(stats->by_outcome);
  return {{"clock_ns", stats->clock_ns},
          {"bin_ms", stats->bin_ns / kNsPerMs},
          {"requests", stats->requests},
          {"admitted", admitted},
          {"refused", refused},
          {"arrivals_by_outcome", stats->by_outcome.to_json(outcome_labels())},
          {"arrivals_by_send", stats->by_send.to_json(send_labels())}};
}

json run_live_event(const RunLiveView& view, std::uint64_t seq,
                    const std::optional<Rate>& allowance,
                    const std::vector<OutageWindow>& outages) {
  const LiveProgress& p = view.progress;
  const std::int64_t answered = p.ok + p.rate_limited + p.server_errors + p.errors;
  json e = fleet_event({std::llround(static_cast<double>(p.elapsed_ns) / view.time_scale),
                        view.recording.client_by_outcome,
                        view.recording.client_by_send_number,
                        false,
                        p.sent,
                        {{"delivered", p.delivered},
                         {"dead_lettered", p.dead_lettered},
                         {"in_backoff", p.in_backoff},
                         {"in_flight", p.sent - answered}}},
                       seq, allowance, outages);
  e["lateness"] = wake_lateness_json(view.recording.lateness_ns);
  e["provider"] = view.provider ? provider_view_json(*view.provider) : json(nullptr);
  if (view.provider && *view.provider) {
    const ProviderStats& stats = **view.provider;
    e["panels"].update(live_panels({stats.by_outcome, stats.by_send, stats.clock_ns},
                                   drawn_limits(allowance, outages), "provider-"));
  }
  add_live_figures(e, true);
  return e;
}

json exec_live_event(const ProviderStats& stats, const ExecProgress& progress, std::uint64_t seq,
                     const std::optional<Rate>& allowance,
                     const std::vector<OutageWindow>& outages) {
  json e = fleet_event({stats.clock_ns,
                        stats.by_outcome,
                        stats.by_send,
                        true,
                        stats.requests,
                        {{"delivered", progress.delivered},
                         {"dead_lettered", progress.dead_lettered},
                         {"processes_running", progress.running},
                         {"processes_ended", progress.ended}}},
                       seq, allowance, outages);
  add_live_figures(e, false);
  return e;
}

}  // namespace stampede
