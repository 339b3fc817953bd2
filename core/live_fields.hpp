#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rate.hpp"
#include "scenario.hpp"

namespace stampede {

// The fields the live dashboard's events share, whoever sends them (fakeprovider's
// /admin/live, loadgen run --dashboard): docs/ADMIN_API.md.

// {"per_s": 100, "text": "100/s"}, or null without a limit.
nlohmann::json live_rate_json(const std::optional<Rate>& rate);
// [{"start_ns", "end_ns", "outage": "START-END:STATUS"}, ...]
nlohmann::json live_outages_json(const std::vector<OutageWindow>& outages);

// An event as a stream of server-sent events carries it (sse_event): "id: SEQ\ndata: JSON\n\n".
std::string live_sse_message(const nlohmann::json& event, std::uint64_t seq);

}  // namespace stampede
