#include "summary.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

namespace stampede {

// Every field is a metric: one left out of kMetrics would be neither written nor asserted on.
static_assert(sizeof(Summary) == kMetrics.size() * sizeof(double));

std::optional<double> metric_value(const Summary& s, std::string_view name) {
  for (const auto& m : kMetrics) {
    if (m.name == name) return s.*(m.field);
  }
  return std::nullopt;
}

nlohmann::json to_json(const Summary& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& m : kMetrics) {
    // Three decimals: enough for seconds and ratios, and stable to print.
    j[std::string(m.name)] = std::round(s.*(m.field) * 1000.0) / 1000.0;
  }
  return j;
}

Summary summary_from_json(const nlohmann::json& j) {
  Summary s;
  for (const auto& m : kMetrics) {
    if (j.contains(m.name)) s.*(m.field) = j.at(std::string(m.name)).get<double>();
  }
  return s;
}

}  // namespace stampede
