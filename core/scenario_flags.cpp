#include "scenario_flags.hpp"

#include <algorithm>

namespace stampede {
namespace {

bool is_repeatable(std::string_view field) {
  const auto named = [&](const ScenarioFlag& f) { return f.field == field && f.repeatable; };
  return std::any_of(kProviderFlags.begin(), kProviderFlags.end(), named) ||
         std::any_of(kFleetFlags.begin(), kFleetFlags.end(), named);
}

}  // namespace

Parsed<Scenario> build_scenario_from_flags(const std::string& path, const FlagValues& values) {
  std::vector<FieldOverride> overrides;
  for (const auto& [field, given] : values) {
    if (given.empty()) continue;
    overrides.push_back(
        {field, is_repeatable(field) ? nlohmann::json(given) : nlohmann::json(given.back())});
  }
  return build_scenario(path, overrides);
}

}  // namespace stampede
