// Without an outage (every staging scenario) the busiest second is the first wave's, whatever
// the strategy: peak_ratio ranks the strategies backwards there. peak_retry_ratio, the busiest
// second among retries past the first, ranks them as their herds are.
#include <doctest/doctest.h>

#include "sim/sim_engine.hpp"
#include "support/process.hpp"

using namespace stampede;

namespace {

// examples/storm.json without its outage: 1000 senders at t=0 against 100/s.
Summary storm_without_outage(StrategyKind strategy, std::int64_t max_attempts) {
  auto s = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE_MESSAGE(s, s.error());
  Scenario scenario = *s;
  scenario.provider.outages.clear();
  scenario.fleet.strategy = strategy;
  scenario.fleet.max_attempts = max_attempts;
  REQUIRE(validate(scenario).empty());
  return simulate(scenario).summary;
}

}  // namespace

TEST_CASE("with no outage, peak_retry_ratio ranks every jitter below exponential backoff") {
  for (const std::int64_t max_attempts : {0, 5}) {
    CAPTURE(max_attempts);
    const Summary exponential = storm_without_outage(StrategyKind::kExponential, max_attempts);
    // The herd: the 900 rejected at t=0 all come back at t=1.
    CHECK(exponential.peak_retries == 900);
    CHECK(exponential.peak_retry_second == 1);
    CHECK(exponential.peak_retry_ratio == doctest::Approx(9));
    for (const auto jitter : {StrategyKind::kFullJitter, StrategyKind::kEqualJitter,
                              StrategyKind::kDecorrelatedJitter}) {
      CAPTURE(to_string(jitter));
      const Summary jittered = storm_without_outage(jitter, max_attempts);
      CHECK(jittered.peak_retry_ratio < exponential.peak_retry_ratio);
      // peak_ratio cannot tell them apart, or says the opposite: the first wave is the peak.
      CHECK(jittered.peak_second == 0);
      CHECK(jittered.peak_ratio >= exponential.peak_ratio);
    }
  }
}

TEST_CASE("after an outage, peak_retry_ratio measures the recovery as peak_ratio does") {
  auto s = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE_MESSAGE(s, s.error());
  const Summary exponential = simulate(*s).summary;
  // Every arrival after the outage is a retry: the two peaks are the same second.
  CHECK(exponential.peak_retry_second == exponential.peak_second);
  CHECK(exponential.peak_retries == exponential.peak_arrivals);
  CHECK(exponential.peak_retry_ratio == doctest::Approx(exponential.peak_ratio));
}
