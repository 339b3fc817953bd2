#include "live_fields.hpp"

#include "event_stream.hpp"
#include "json_text.hpp"

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

std::string live_sse_message(const nlohmann::json& event, std::uint64_t seq) {
  return sse_event(seq, json_text(event));
}

}  // namespace stampede
