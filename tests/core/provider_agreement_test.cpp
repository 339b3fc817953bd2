#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "provider_agreement.hpp"
#include "rate.hpp"
#include "scenario.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

// loadgen's scenario as its flags build it: every field given is marked so.
Scenario loadgen_scenario(const std::vector<FieldOverride>& flags) {
  const auto s = build_scenario("", flags);
  REQUIRE_MESSAGE(s, s.error());
  return *s;
}

// What a fakeprovider started with these flags prints as its provider section.
json enforced_by(const std::vector<FieldOverride>& flags) {
  return to_json(loadgen_scenario(flags)).at("provider");
}

}  // namespace

TEST_CASE("loadgen's provider fields against the provider's: the ones it gave must agree") {
  struct Row {
    const char* name;
    std::vector<FieldOverride> loadgen;
    std::vector<FieldOverride> provider;
    std::vector<std::string> disagree;  // "key ours/theirs"
  };
  const std::vector<Row> rows = {
      {"nothing given takes everything", {}, {{"provider.allowance", "1000/s"}}, {}},
      {"the same allowance",
       {{"provider.allowance", "1000/s"}},
       {{"provider.allowance", "1000/s"}},
       {}},
      {"another allowance",
       {{"provider.allowance", "4000/min"}},
       {{"provider.allowance", "1000/s"}},
       {"allowance 4000/min/1000/s"}},
      {"a window is part of a limit",
       {{"provider.allowance", "60/min"}},
       {{"provider.allowance", "1/s"}},
       {"allowance 60/min/1/s"}},
      {"an allowance the provider does not enforce",
       {{"provider.allowance", "10/s"}},
       {},
       {"allowance 10/s/none"}},
      {"outages given, none enforced",
       {{"provider.allowance", "1000/s"}, {"provider.outages", json::array({"0s-20s:503"})}},
       {{"provider.allowance", "1000/s"}},
       {"outages 0s-20s:503/none"}},
      {"a default given explicitly is held too",
       {{"provider.limiter", "fixed-window"}},
       {{"provider.limiter", "token-bucket"}},
       {"limiter fixed-window/token-bucket"}},
      {"a field left out is the provider's, whatever it is",
       {{"provider.allowance", "1000/s"}},
       {{"provider.allowance", "1000/s"}, {"provider.latency", "5ms-20ms"}},
       {}},
      {"two at once, in the table's order",
       {{"provider.outages", json::array({"0s-20s:503"})}, {"provider.allowance", "4000/min"}},
       {{"provider.allowance", "1000/s"}},
       {"allowance 4000/min/1000/s", "outages 0s-20s:503/none"}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    const auto agreement =
        agree_on_provider(loadgen_scenario(row.loadgen), enforced_by(row.provider));
    REQUIRE_MESSAGE(agreement, agreement.error());
    std::vector<std::string> seen;
    for (const auto& d : agreement->disagreements)
      seen.push_back(d.key + " " + d.ours + "/" + d.theirs);
    CHECK(seen == row.disagree);
    // The run's provider is the enforced one, every field.
    const Scenario enforced_scenario = loadgen_scenario(row.provider);
    Scenario adopted = enforced_scenario;
    adopted.provider = agreement->provider;
    CHECK(to_json(adopted).at("provider") == to_json(enforced_scenario).at("provider"));
  }
}

TEST_CASE("the refusal names both values, the provider and the flags to drop") {
  const auto agreement =
      agree_on_provider(loadgen_scenario({{"provider.allowance", "4000/min"},
                                          {"provider.outages", json::array({"0s-20s:503"})}}),
                        enforced_by({{"provider.allowance", "1000/s"}}));
  REQUIRE(agreement);
  CHECK(disagreement_error(agreement->disagreements, "http://127.0.0.1:8081") ==
        "loadgen's scenario says allowance 4000/min, outages 0s-20s:503, the provider at "
        "http://127.0.0.1:8081 enforces allowance 1000/s, outages none: start fakeprovider with "
        "the same --scenario and flags, or drop --allowance and --outage (loadgen then takes the "
        "provider's)");
  // A field loadgen has no flag for is named by its key in the scenario file.
  const auto dialect =
      agree_on_provider(loadgen_scenario({{"provider.dialect", "openai"}}), enforced_by({}));
  REQUIRE(dialect);
  REQUIRE(dialect->disagreements.size() == 1);
  CHECK(dialect->disagreements[0].flag == "provider.dialect");
  CHECK(dialect->disagreements[0].theirs == "generic");
  // loadgen spells the provider's seed --provider-seed (--seed is the fleet's).
  const auto seed = agree_on_provider(loadgen_scenario({{"provider.seed", "7"}}), enforced_by({}));
  REQUIRE(seed);
  REQUIRE(seed->disagreements.size() == 1);
  CHECK(seed->disagreements[0].flag == "--provider-seed");
}

TEST_CASE("settings a provider could not have enforced are an error, not a default") {
  const Scenario ours = loadgen_scenario({});
  const auto not_object = agree_on_provider(ours, json::array());
  REQUIRE_FALSE(not_object);
  CHECK(not_object.error() == "its provider section is not an object");
  const auto unknown = agree_on_provider(ours, json{{"allowence", "1/s"}});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().starts_with("unknown key 'provider.allowence'"));
  const auto bad = agree_on_provider(ours, json{{"allowance", "fast"}});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().starts_with("provider.allowance: "));
}
