#include <doctest/doctest.h>

#include <set>
#include <string>

#include "scenario.hpp"
#include "scenario_fields.hpp"
#include "scenario_flags.hpp"

using namespace stampede;
using json = nlohmann::json;

namespace {

// The scenarios a field is tried in: the plain defaults, and with the fields that show only
// when used (the token quota's, occ mode's, the trace workload's) in the document.
std::vector<Scenario> bases() {
  Scenario plain;
  Scenario quotas;
  REQUIRE_FALSE(set_field(quotas, "provider.token_allowance", "1000/min"));
  Scenario occ = quotas;
  REQUIRE_FALSE(set_field(occ, "provider.mode", "occ"));
  Scenario trace;
  REQUIRE_FALSE(set_field(trace, "fleet.workload", "trace"));
  REQUIRE_FALSE(set_field(trace, "fleet.trace", "access.log"));
  return {plain, quotas, occ, trace};
}

// A value as the file gives it: a list field takes a list.
json file_value(const ScenarioField& f, std::string_view text) {
  json value = std::string(text);
  if (!f.list) return value;
  json list = json::array();
  list.push_back(std::move(value));
  return list;
}

// Where to_json puts a field.
json::json_pointer path_of(const ScenarioField& f) {
  const std::string section(f.section());
  return json::json_pointer((section.empty() ? "" : "/" + section) + "/" + std::string(f.key()));
}

}  // namespace

TEST_CASE("every field's example parses, prints and parses back to the same scenario") {
  for (const auto& f : scenario_fields()) {
    CAPTURE(f.name);
    REQUIRE_FALSE(f.example.empty());
    REQUIRE(f.example != f.default_text);
    bool printed = false;
    for (const auto& base : bases()) {
      Scenario once = base;
      REQUIRE_FALSE(set_field(once, f.name, file_value(f, f.example)));
      const auto shown = f.print(once);
      if (!shown) continue;
      printed = true;
      // to_json is the table's prints: the field is where its name says, as it printed.
      const json document = to_json(once);
      REQUIRE(document.contains(path_of(f)));
      CHECK(document.at(path_of(f)) == *shown);
      Scenario twice = base;
      REQUIRE_FALSE(set_field(twice, f.name, *shown));
      CHECK(f.print(twice) == shown);
      CHECK(to_json(twice) == document);
    }
    // A field the document never shows would be lost between a run and its results.
    CHECK(printed);
  }
}

TEST_CASE("to_json holds the table's fields and nothing else") {
  std::set<std::string> names;
  for (const auto& f : scenario_fields()) names.emplace(f.name);
  for (const auto& base : bases()) {
    const json document = to_json(base);
    for (const auto& [key, value] : document.items()) {
      if (!value.is_object()) {
        CHECK(names.count(key) == 1);
        continue;
      }
      for (const auto& [sub, v] : value.items()) {
        CAPTURE(key + "." + sub);
        CHECK(names.count(key + "." + sub) == 1);
      }
    }
  }
}

TEST_CASE("every field has a flag with help and a type, or says why not") {
  std::set<std::string> fakeprovider_flags;
  std::set<std::string> loadgen_flags;
  for (const auto& f : scenario_fields()) {
    CAPTURE(f.name);
    REQUIRE((f.parse != nullptr));
    REQUIRE((f.print != nullptr));
    if (f.in == kNoFlag) {
      CHECK(f.flag.empty());
      CHECK_FALSE(f.no_flag.empty());
      continue;
    }
    CHECK(f.no_flag.empty());
    CHECK(f.flag.substr(0, 2) == "--");
    CHECK_FALSE(f.help.empty());
    CHECK_FALSE(f.type.empty());
    // The section says which binaries may take it: fakeprovider has no fleet.
    CHECK((f.section() == "provider" || (f.in & kFakeprovider) == 0));
    CHECK((!f.dialect || (f.in & kFakeprovider) != 0));
    // One flag, one field, in each binary.
    if ((f.in & kLoadgen) != 0) CHECK(loadgen_flags.insert(loadgen_flag(f)).second);
    if ((f.in & kFakeprovider) != 0) CHECK(fakeprovider_flags.insert(std::string(f.flag)).second);
  }
}

TEST_CASE("loadgen spells a provider flag that a fleet flag has with a provider- prefix") {
  CHECK(loadgen_flag(*find_field("provider.seed")) == "--provider-seed");
  CHECK(loadgen_flag(*find_field("provider.retry_after")) == "--provider-retry-after");
  CHECK(loadgen_flag(*find_field("fleet.seed")) == "--seed");
  CHECK(loadgen_flag(*find_field("provider.allowance")) == "--allowance");
  // fakeprovider's alone, the wire's version of simulate's fleet.hop_delay: one name for both.
  CHECK(loadgen_flag(*find_field("provider.hop_delay")) == "--hop-delay");
}

TEST_CASE("a default --help shows is the scenario's own default") {
  for (const auto& f : scenario_fields()) {
    if (f.default_text.empty()) continue;
    CAPTURE(f.name);
    for (const auto& base : bases()) {
      if (f.name == "provider.mode" && base.provider.mode == ProviderMode::kOcc) continue;
      if (f.name == "fleet.workload" && base.fleet.workload == WorkloadKind::kTrace) continue;
      Scenario given = base;
      REQUIRE_FALSE(set_field(given, f.name, std::string(f.default_text)));
      CHECK(to_json(given) == to_json(base));
    }
  }
}

TEST_CASE("a field's own check names the field; a scenario of defaults passes them all") {
  Scenario s;
  CHECK(validate(s).empty());
  s.fleet.multiplier = 0.5;
  s.provider.tenant_header.clear();
  const auto errors = validate(s);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == "fleet.multiplier: must be at least 1");
  CHECK(errors[1] == "provider.tenant_header: must not be empty");
}

TEST_CASE("a flag's values become the field's: the last wins, a list's replace the file's") {
  const auto s = build_scenario_from_flags(
      "", {{"fleet.clients", {"5", "7"}}, {"provider.outages", {"0s-1s", "2s-3s:529"}}});
  REQUIRE(s);
  CHECK(s->fleet.clients == 7);
  CHECK(s->provider.outages.size() == 2);
}
