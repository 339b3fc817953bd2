#include "scenario_flags.hpp"

#include <algorithm>

namespace stampede {

std::string loadgen_flag(const ScenarioField& f) {
  const auto& fields = scenario_fields();
  // A field fakeprovider alone takes keeps its name: loadgen has no flag of it to tell apart
  // (fakeprovider's --hop-delay is simulate's --hop-delay, on the wire).
  const bool taken = f.section() == "provider" && (f.in & kLoadgen) != 0 &&
                     std::any_of(fields.begin(), fields.end(), [&](const auto& o) {
                       return o.section() == "fleet" && (o.in & kLoadgen) != 0 && o.flag == f.flag;
                     });
  return taken ? "--provider-" + std::string(f.flag.substr(2)) : std::string(f.flag);
}

Parsed<Scenario> build_scenario_from_flags(const std::string& path, const FlagValues& values) {
  std::vector<FieldOverride> overrides;
  for (const auto& [field, given] : values) {
    if (given.empty()) continue;
    const auto* f = find_field(field);
    const bool list = f != nullptr && f->list;
    overrides.push_back({field, list ? nlohmann::json(given) : nlohmann::json(given.back())});
  }
  return build_scenario(path, overrides);
}

}  // namespace stampede
