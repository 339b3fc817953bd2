// A run whose sends mostly could not connect measured the harness: the rule, by table.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "connection_failure.hpp"

using namespace stampede;

TEST_CASE("mostly connection errors is a harness failure, judged by the provider's count") {
  struct Row {
    const char* name;
    ConnectionEvidence e;
    bool failure;
    bool harness = true;  // a harness failure (exit 3), not only a warning
  };
  const Row rows[] = {
      // The fleet: 88% of the sends could not connect, the provider refused them.
      {"provider refused most", {100'000, 88'000, 34'000 * 3, false}, true},
      {"provider refused most, exec (no clients' view)", {1000, std::nullopt, 600, false}, true},
      {"just over the share", {1000, 501, 501, false}, true},
      {"exactly the share is not mostly", {1000, 500, 500, false}, false},
      // The provider's refusals count only as far as the clients saw them fail.
      {"provider refused many, the clients saw few", {1000, 100, 900, false}, false},
      // Connection errors the provider did not cause are the target's outcomes (a reset
      // outage, a proxy between).
      {"connection errors, the provider refused none", {1000, 900, 0, false}, false},
      // Without the provider's count, a provider that was down looks the same: a warning only.
      {"no provider count: errors alone", {1000, 880, std::nullopt, false}, true, false},
      {"no provider count: few errors", {1000, 400, std::nullopt, false}, false},
      {"no provider count, resets declared", {1000, 880, std::nullopt, true}, false},
      {"resets declared, the provider refused most", {1000, 880, 700, true}, true},
      {"nothing sent", {0, 0, 0, false}, false},
      {"exec without the provider's count", {1000, std::nullopt, std::nullopt, false}, false},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    const auto why = connection_failure(row.e);
    CHECK(why.has_value() == row.failure);
    if (!why) continue;
    CHECK(why->harness == row.harness);
    // Names the remedy, whichever view it came from.
    CHECK(why->why.find("fakeprovider --processes N") != std::string::npos);
    CHECK(why->why.find("--max-connections") != std::string::npos);
    CHECK(why->why.find("ulimit -n") != std::string::npos);
  }
}

TEST_CASE("the harness failure says the share, the sends and the provider's refusals") {
  const auto with = connection_failure({1000, 880, 700, false});
  REQUIRE(with);
  CHECK(with->why.find("70% of the 1000 sends (700)") != std::string::npos);
  CHECK(with->why.find("turned away 700 connections") != std::string::npos);
  const auto without = connection_failure({1000, 880, std::nullopt, false});
  REQUIRE(without);
  CHECK(without->why.find("88% of the 1000 sends (880) were refused or reset") !=
        std::string::npos);
  CHECK(without->why.find("--provider-admin") != std::string::npos);
}
