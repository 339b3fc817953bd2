#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "assertion.hpp"
#include "duration.hpp"
#include "strict_json.hpp"

namespace stampede {

using json = nlohmann::json;

namespace {

constexpr std::string_view kPolicyField = "fleet.policy";

// Sets a section's keys, the preset first so that the section's other fields refine it.
std::optional<std::string> set_section(Scenario& s, const std::string& key, const json& section) {
  if (section.contains("policy")) {
    if (auto error = set_field(s, kPolicyField, section.at("policy"))) return error;
  }
  for (const auto& [sub, v] : section.items()) {
    if (key + "." + sub == kPolicyField) continue;
    if (auto error = set_field(s, key + "." + sub, v)) return error;
  }
  return std::nullopt;
}

// Both rate and duration may be huge: saturate rather than convert a double no integer holds.
std::int64_t whole_items(double n) {
  n = std::floor(n);
  return n <= static_cast<double>(kMaxItems) ? static_cast<std::int64_t>(n) : kMaxItems + 1;
}

}  // namespace

std::int64_t FleetConfig::item_count() const {
  // Stages end: items may only cut the ramp's arrivals short.
  if (workload == WorkloadKind::kSteady && !stages.empty()) {
    const std::int64_t ramp = whole_items(stages_area(stages));
    return items ? std::min(*items, ramp) : ramp;
  }
  if (items) return *items;
  // A trace's arrivals are counted when it is read (count_trace_arrivals), before the run.
  if (workload == WorkloadKind::kTrace) return 0;
  if (workload == WorkloadKind::kSteady && rate && duration_ns)
    return whole_items(rate->per_second() * ns_to_s(*duration_ns));
  return clients;
}

Parsed<Scenario> scenario_from_json(const json& j) {
  if (!j.is_object()) return Parsed<Scenario>::fail("a scenario is a JSON object");
  Scenario s;
  for (const auto& [key, value] : j.items()) {
    if (key == "provider" || key == "fleet") {
      if (!value.is_object()) return Parsed<Scenario>::fail(key + ": expected an object");
      if (auto error = set_section(s, key, value)) return Parsed<Scenario>::fail(*error);
    } else if (auto error = set_field(s, key, value)) {
      return Parsed<Scenario>::fail(*error);
    }
  }
  return Parsed<Scenario>::ok(std::move(s));
}

Parsed<Scenario> load_scenario_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Parsed<Scenario>::fail("cannot read scenario file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  const auto j = parse_strict_json(text.str());
  if (!j) return Parsed<Scenario>::fail("scenario file '" + path + "' " + j.error());
  auto s = scenario_from_json(*j);
  if (!s) return Parsed<Scenario>::fail("scenario file '" + path + "': " + s.error());
  // Read with the file, so that a bad one is named by the file it is in.
  for (const auto& e : s->expectations) {
    auto a = parse_assertion(e);
    if (!a)
      return Parsed<Scenario>::fail("scenario file '" + path + "': expectations: " + a.error());
  }
  return s;
}

Parsed<Scenario> build_scenario(const std::string& path,
                                const std::vector<FieldOverride>& overrides) {
  Scenario s;
  if (!path.empty()) {
    auto loaded = load_scenario_file(path);
    if (!loaded) return loaded;
    s = *loaded;
  }
  // A --policy replaces the file's policy and yields to the other flags.
  auto ordered = overrides;
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const FieldOverride& o) { return o.field == kPolicyField; });
  for (const auto& o : ordered) {
    if (auto error = set_field(s, o.field, o.value)) return Parsed<Scenario>::fail(*error);
  }
  std::string errors;
  for (const auto& e : validate(s)) errors += (errors.empty() ? "" : "; ") + e;
  if (!errors.empty()) return Parsed<Scenario>::fail(errors);
  return Parsed<Scenario>::ok(std::move(s));
}

std::int64_t recovery_ns(const ProviderConfig& p) {
  std::int64_t end = 0;
  for (const auto& w : p.outages) end = std::max(end, w.end_ns);
  return end;
}

}  // namespace stampede
