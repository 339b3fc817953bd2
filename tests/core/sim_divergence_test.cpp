// How far a live run's arrivals are from its simulation's, and who may check it.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "gate.hpp"
#include "sim_divergence.hpp"

using namespace stampede;

namespace {

// Arrivals per second, one label.
BinnedCounts per_second(const std::vector<int>& counts) {
  BinnedCounts c(kNsPerSec, 1);
  for (std::size_t s = 0; s < counts.size(); ++s)
    c.add(static_cast<std::int64_t>(s) * kNsPerSec, 0, counts[s]);
  return c;
}

}  // namespace

TEST_CASE("sim_divergence: the share of requests moved, added or removed between seconds") {
  struct Row {
    std::vector<int> live, simulated;
    double divergence;
  };
  const Row rows[] = {
      {{100, 50, 10}, {100, 50, 10}, 0.0},  // the demo: live = simulation
      {{}, {}, 0.0},                        // neither sent anything
      {{10, 0}, {0, 10}, 1.0},              // every request in another second
      {{90, 10}, {100, 0}, 0.1},            // 10 of 100 a second late
      {{}, {10}, 1.0},                      // nothing arrived where 10 should have
      {{12}, {10}, 2.0 / 12},               // two too many: removed
      {{10, 2}, {12, 0}, 2.0 / 12},         // the same two in the next second: moved
      {{0, 0, 5}, {5}, 1.0},                // a longer live run: its bins past the simulation's
  };
  for (const auto& row : rows) {
    const auto d = sim_divergence(per_second(row.live), per_second(row.simulated));
    REQUIRE(d);
    CHECK(*d == doctest::Approx(row.divergence));
    // Symmetric: which side is live does not change how far apart they are.
    CHECK(*sim_divergence(per_second(row.simulated), per_second(row.live)) ==
          doctest::Approx(row.divergence));
  }
}

TEST_CASE("sim_divergence: arrivals past the last bin are one more second") {
  BinnedCounts live(kNsPerSec, 1), simulated(kNsPerSec, 1);
  live.add(0, 0, 5);
  simulated.add(0, 0, 5);
  live.add(live.overflow_start_ns(), 0, 5);
  CHECK(*sim_divergence(live, simulated) == doctest::Approx(0.5));
}

TEST_CASE("sim_divergence: none when the bins differ") {
  CHECK_FALSE(sim_divergence(BinnedCounts(kNsPerSec, 1), BinnedCounts(kNsPerMs, 1)));
}

TEST_CASE("a check on sim_divergence needs the run's comparison with its simulation") {
  const auto a = parse_assertion("sim_divergence < 0.05");
  REQUIRE(a);
  ProviderConfig p;
  // simulate, exec and a document without a comparison: refused, naming the metric and why.
  const auto why = meaning_error(*a, metric_context("simulate", p, true, true));
  REQUIRE(why);
  CHECK(why->find("sim_divergence") != std::string::npos);
  CHECK(why->find("loadgen run") != std::string::npos);
  // loadgen run, and merge of every shard.
  auto compared = metric_context("run", p, false);
  compared.sim_comparison = true;
  CHECK_FALSE(meaning_error(*a, compared));
}
