#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "rate.hpp"
#include "scenario.hpp"

namespace stampede {

// The fields the live dashboard's events share, whoever sends them (fakeprovider's
// /admin/live, loadgen run --dashboard): docs/ADMIN_API.md.

// {"per_s": 100, "text": "100/s"}, or null without a limit.
nlohmann::json live_rate_json(const std::optional<Rate>& rate);
// [{"start_ns", "end_ns", "outage": "START-END:STATUS"}, ...]
nlohmann::json live_outages_json(const std::vector<OutageWindow>& outages);

// The pace of the arrivals (a fleet's page: its clients' sends), for the dashboards' figures.
struct LivePace {
  // Per second over the last whole bins before now that cover a second ([now_from_s,
  // now_to_s)); none until they are whole. The bin now is in is still filling: left out.
  std::optional<double> now_per_s;
  double now_from_s = 0;
  double now_to_s = 0;
  // The summary's peak (arrival_peak) so far: from the last outage's end (peak_from_s) on, as
  // the gate's peak_ratio counts it; 0 before then.
  double peak_per_s = 0;
  double peak_second = 0;
  double peak_from_s = 0;
  std::optional<double> peak_ratio;  // none without an allowance (or a capacity)
};
LivePace live_pace(const BinnedCounts& arrivals, std::int64_t now_ns,
                   const ProviderConfig& provider);
// {"now_per_s" (or null), "now_from_s", "now_to_s", "peak_per_s", "peak_second", "peak_from_s",
//  "peak_ratio" (or null)}
nlohmann::json live_pace_json(const LivePace& pace);

// An event as a stream of server-sent events carries it (sse_event): "id: SEQ\ndata: JSON\n\n".
std::string live_sse_message(const nlohmann::json& event, std::uint64_t seq);

}  // namespace stampede
