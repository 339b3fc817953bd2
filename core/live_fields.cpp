#include "live_fields.hpp"

#include <algorithm>

#include "event_stream.hpp"
#include "json_optional.hpp"
#include "json_text.hpp"
#include "results.hpp"

namespace stampede {

nlohmann::json live_rate_json(const std::optional<Rate>& rate) {
  if (!rate) return nullptr;
  return {{"per_s", rate->per_second()}, {"text", format_rate(*rate)}};
}

nlohmann::json live_outages_json(const std::vector<OutageWindow>& outages) {
  auto out = nlohmann::json::array();
  for (const auto& w : outages) {
    out.push_back({{"start_ns", w.start_ns}, {"end_ns", w.end_ns}, {"outage", format_outage(w)}});
  }
  return out;
}

LivePace live_pace(const BinnedCounts& arrivals, std::int64_t now_ns,
                   const ProviderConfig& provider) {
  LivePace pace;
  const std::int64_t bin_ns = arrivals.bin_ns();
  const std::int64_t window = std::max<std::int64_t>(1, (kNsPerSec + bin_ns - 1) / bin_ns);
  const std::int64_t to_bin = std::max<std::int64_t>(0, now_ns) / bin_ns;
  if (to_bin >= window) {
    std::int64_t n = 0;
    for (auto b = static_cast<std::size_t>(to_bin - window);
         b < std::min(static_cast<std::size_t>(to_bin), arrivals.bins()); ++b) {
      n += arrivals.bin_total(b);
    }
    pace.now_per_s = static_cast<double>(n) / ns_to_s(window * bin_ns);
    pace.now_from_s = ns_to_s((to_bin - window) * bin_ns);
    pace.now_to_s = ns_to_s(to_bin * bin_ns);
  }
  const ArrivalPeak peak = arrival_peak(arrivals, provider);
  pace.peak_per_s = peak.count / ns_to_s(bin_ns);
  pace.peak_second = peak.start_s;
  pace.peak_from_s = ns_to_s(recovery_ns(provider));
  if (provider.allowance || provider.capacity) pace.peak_ratio = peak.ratio;
  return pace;
}

nlohmann::json live_pace_json(const LivePace& pace) {
  return {{"now_per_s", or_null(pace.now_per_s)},
          {"now_from_s", pace.now_from_s},
          {"now_to_s", pace.now_to_s},
          {"peak_per_s", pace.peak_per_s},
          {"peak_second", pace.peak_second},
          {"peak_from_s", pace.peak_from_s},
          {"peak_ratio", or_null(pace.peak_ratio)}};
}

std::string live_sse_message(const nlohmann::json& event, std::uint64_t seq) {
  return sse_event(seq, json_text(event));
}

}  // namespace stampede
