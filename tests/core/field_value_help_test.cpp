#include <doctest/doctest.h>

#include <string>

#include "field_value_help.hpp"
#include "scenario.hpp"
#include "scenario_flags.hpp"

using namespace stampede;

namespace {

// The scenarios a default is compared in: the plain defaults, and with the fields that show
// only when used (the token quota's, occ mode's) in the document.
std::vector<Scenario> bases() {
  Scenario plain;
  Scenario quotas;
  REQUIRE_FALSE(set_field(quotas, "provider.token_allowance", "1000/min"));
  Scenario occ = quotas;
  REQUIRE_FALSE(set_field(occ, "provider.mode", "occ"));
  return {plain, quotas, occ};
}

}  // namespace

TEST_CASE("every scenario flag has a type and default for --help") {
  const auto check = [](const auto& flags) {
    for (const auto& f : flags) {
      CAPTURE(f.field);
      const auto help = field_value_help(f.field);
      REQUIRE(help);
      CHECK_FALSE(help->type.empty());
    }
  };
  check(kFleetFlags);
  check(kProviderFlags);
}

TEST_CASE("a default --help shows is the scenario's own default") {
  for (const auto& field : field_names()) {
    const auto help = field_value_help(field);
    if (!help || help->default_text.empty()) continue;
    CAPTURE(field);
    for (const auto& base : bases()) {
      if (field == "provider.mode" && base.provider.mode == ProviderMode::kOcc) continue;
      Scenario given = base;
      REQUIRE_FALSE(set_field(given, field, std::string(help->default_text)));
      CHECK(to_json(given) == to_json(base));
    }
  }
}
