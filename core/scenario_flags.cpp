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

namespace {

// The same key in the other section, where the refused value means something: loadgen's
// --retry-after is the fleet's (ignore, exact), the provider's on|off is --provider-retry-after.
std::string other_section_takes(const ScenarioField& refused, const nlohmann::json& value,
                                std::string (*flag_of)(const ScenarioField&)) {
  const unsigned binary = flag_of == &provider_flag ? kFakeprovider : kLoadgen;
  for (const auto& other : scenario_fields()) {
    if (other.name == refused.name || other.key() != refused.key()) continue;
    Scenario scratch;
    if ((other.in & binary) == 0 || set_field(scratch, other.name, value)) continue;
    const auto text = value.is_string() ? value.get<std::string>() : value.dump();
    return "; " + text + " is the " + std::string(other.section()) + "'s " +
           std::string(other.key()) + ": did you mean " + flag_of(other) + " " + text + "?";
  }
  return "";
}

}  // namespace

std::string provider_flag(const ScenarioField& f) {
  return loadgen_flag(f);
}

Parsed<Scenario> build_scenario_from_flags(const std::string& path, const FlagValues& values,
                                           std::string (*flag_of)(const ScenarioField&)) {
  std::vector<FieldOverride> overrides;
  for (const auto& [field, given] : values) {
    if (given.empty()) continue;
    const auto* f = find_field(field);
    const bool list = f != nullptr && f->list;
    overrides.push_back({field, list ? nlohmann::json(given) : nlohmann::json(given.back())});
    // A value typed as a flag is named by the flag, which is what its user wrote and will
    // edit, then by the scenario path it sets. Each value alone: the rules across fields
    // come after, in build_scenario.
    Scenario alone;
    if (auto error = f ? set_field(alone, field, overrides.back().value) : std::nullopt)
      return Parsed<Scenario>::fail(flag_of(*f) + " (" + field + ")" + error->substr(field.size()) +
                                    other_section_takes(*f, overrides.back().value, flag_of));
  }
  return build_scenario(path, overrides);
}

}  // namespace stampede
