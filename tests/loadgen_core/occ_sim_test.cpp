#include <doctest/doctest.h>

#include <cmath>

#include <vector>

#include "duration.hpp"
#include "sim/occ_sim.hpp"
#include "sim/sim_trials.hpp"

using namespace stampede;

namespace {

constexpr std::int64_t kMs = 1'000'000;

// The blog's set-up: N clients, one row, a hop of 10ms +- 2ms, cap 2000ms.
Scenario occ(StrategyKind strategy, std::int64_t clients, std::uint64_t seed = 1) {
  Scenario s;
  s.provider.mode = ProviderMode::kOcc;
  s.fleet.clients = clients;
  s.fleet.strategy = strategy;
  s.fleet.base_ns = strategy == StrategyKind::kDecorrelatedJitter ? 5 * kMs : 10 * kMs;
  s.fleet.cap_ns = 2000 * kMs;
  s.fleet.seed = seed;
  REQUIRE(validate(s).empty());
  return s;
}

std::int64_t occ_arrivals(const Results& r, Outcome o) {
  const auto& h = r.recording.provider_by_outcome;
  std::int64_t n = 0;
  for (std::size_t b = 0; b < h.bins(); ++b) n += h.at(b, static_cast<std::size_t>(o));
  return n;
}

void check_every_item_delivered(const Results& r, std::int64_t clients) {
  CHECK(r.recording.items == clients);
  CHECK(r.recording.delivered == clients);
  CHECK(r.recording.dead_lettered == 0);
  CHECK(r.recording.unfinished == 0);
  CHECK(r.recording.provider_by_outcome.total() == r.recording.requests);
  CHECK(r.recording.client_by_outcome.total() == r.recording.requests);
  // Every write that failed was a 412, and a failed write was read again before the next.
  const auto conflicts = occ_arrivals(r, Outcome::kClientError);
  CHECK(r.recording.writes == clients + conflicts);
  CHECK(r.recording.requests == 2 * r.recording.writes);
}

}  // namespace

TEST_CASE("occ sim: one client takes one read and one write, four hops") {
  Scenario s = occ(StrategyKind::kFullJitter, 1);
  s.fleet.hop_delay = {10 * kMs, 0};
  const Results r = simulate_occ(s);
  check_every_item_delivered(r, 1);
  CHECK(r.summary.writes == 1);
  CHECK(r.summary.requests == 2);
  CHECK(r.recording.drain_ns == 40 * kMs);
}

TEST_CASE("occ sim: with no spread, a herd reads the same version and exactly one write wins") {
  // Every hop 10ms: all ten read version 0 at t=10ms and write at t=30ms; the first write
  // scheduled wins, the nine others get 412, back off exactly alike, and so on.
  Scenario s = occ(StrategyKind::kExponential, 10);
  s.fleet.hop_delay = {10 * kMs, 0};
  const Results r = simulate_occ(s);
  check_every_item_delivered(r, 10);
  CHECK(r.summary.writes == 10 + 9 + 8 + 7 + 6 + 5 + 4 + 3 + 2 + 1);
}

TEST_CASE("occ sim: the same seed gives the same results, byte for byte, another seed does not") {
  const auto a = to_json(simulate_occ(occ(StrategyKind::kFullJitter, 100, 7))).dump();
  const auto b = to_json(simulate_occ(occ(StrategyKind::kFullJitter, 100, 7))).dump();
  const auto c = to_json(simulate_occ(occ(StrategyKind::kFullJitter, 100, 8))).dump();
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("acceptance: occ, 100 clients, 100 trials: no jitter makes more writes, far slower") {
  const Results exponential = simulate_trials(occ(StrategyKind::kExponential, 100), 100);
  const Results full = simulate_trials(occ(StrategyKind::kFullJitter, 100), 100);
  CHECK(exponential.trials == 100);
  check_every_item_delivered(full, 100);
  const auto& e = exponential.summary;
  const auto& f = full.summary;
  MESSAGE("exponential: " << e.writes << " writes, drain " << e.drain_s << " s; full jitter: "
                          << f.writes << " writes, drain " << f.drain_s << " s");
  CHECK(e.delivered == 100);
  CHECK(f.delivered == 100);
  CHECK(e.writes > 2 * f.writes);
  CHECK(e.drain_s > 5 * f.drain_s);
}

TEST_CASE("trials: trial t runs with seed + t, and the summary is the mean of theirs") {
  CHECK(trial_seed(41, 0) == 41);
  CHECK(trial_seed(41, 2) == 43);
  const Scenario s = occ(StrategyKind::kEqualJitter, 20, 41);
  double writes = 0;
  double drain_s = 0;
  for (std::int64_t t = 0; t < 3; ++t) {
    Scenario one = s;
    one.fleet.seed = trial_seed(s.fleet.seed, t);
    const Results r = simulate_occ(one);
    writes += r.summary.writes;
    drain_s += r.summary.drain_s;
  }
  const Results mean = simulate_trials(s, 3);
  CHECK(mean.trials == 3);
  CHECK(mean.summary.writes == doctest::Approx(writes / 3));
  CHECK(mean.summary.drain_s == doctest::Approx(drain_s / 3));
  // The histograms are trial 0's, the single run of the seed.
  CHECK(to_json(simulate_trials(s, 1)).dump() == to_json(simulate_occ(s)).dump());
  CHECK(mean.recording.requests == simulate_occ(s).recording.requests);
}

TEST_CASE("a hop is normal, folded at zero, with no spread it is the mean and draws nothing") {
  Rng rng(3);
  Rng untouched(3);
  CHECK(draw_hop_ns({10 * kMs, 0}, rng) == 10 * kMs);
  CHECK(rng.next() == untouched.next());
  // Mean 0: |N(0, sd)| has mean sd * sqrt(2 / pi) and never goes below zero.
  double sum = 0;
  constexpr int kDraws = 20'000;
  for (int i = 0; i < kDraws; ++i) {
    const auto h = draw_hop_ns({0, 1000}, rng);
    REQUIRE(h >= 0);
    sum += static_cast<double>(h);
  }
  CHECK(sum / kDraws == doctest::Approx(1000 * std::sqrt(2 / M_PI)).epsilon(0.03));
}

TEST_CASE("occ sim: the provider's layers apply, so an allowance spreads the herd") {
  Scenario s = occ(StrategyKind::kFullJitter, 50);
  s.provider.allowance = parse_rate("20/s").value();
  const Results r = simulate_occ(s);
  CHECK(r.recording.delivered == 50);
  CHECK(occ_arrivals(r, Outcome::kRateLimited) > 0);
}

namespace {

// The blog's herd, built as the CLI builds it, with the overrides given.
Scenario occ_herd(std::vector<FieldOverride> overrides) {
  std::vector<FieldOverride> all = {
      {"provider.mode", "occ"}, {"fleet.clients", 50}, {"fleet.base", "10ms"}, {"fleet.cap", "2s"}};
  all.insert(all.end(), overrides.begin(), overrides.end());
  auto s = build_scenario("", all);
  REQUIRE_MESSAGE(s, s.error());
  return *s;
}

}  // namespace

TEST_CASE("occ sim: an adaptive throttle drops sends on the client, as the plain engine's does") {
  // The herd's conflicts are failures to the throttle, which soon rejects most sends. Before
  // the occ engine drove the item life, the throttle only listened: the run was the one
  // without it, byte for byte.
  const std::vector<FieldOverride> bounded = {{"fleet.max_attempts", 5}};
  auto with = bounded;
  with.push_back({"fleet.adaptive_throttle", "2,2m"});
  const Results dropping = simulate_occ(occ_herd(with));
  const Results plain = simulate_occ(occ_herd(bounded));
  CHECK(dropping.recording.requests < plain.recording.requests);
  // Each retry enters a backoff and leaves it. Without drops every retry follows a failed
  // answer; the dropping fleet retries more often than it was answered with a failure.
  const auto retries = [](const Results& r) { return r.recording.backoff.total() / 2; };
  const auto failed = [](const Results& r) {
    return r.recording.requests - occ_arrivals(r, Outcome::kOk);
  };
  CHECK(retries(plain) <= failed(plain));
  CHECK(retries(dropping) > failed(dropping));
}

TEST_CASE("occ sim: every request declares the fleet's tokens, so a token quota turns some away") {
  // 1,000 tokens a request against 5,000 a second: five requests a second, and the herd sends
  // hundreds in its first second. Undeclared, the quota counted nothing and admitted all.
  const Results r =
      simulate_occ(occ_herd({{"fleet.tokens", 1000}, {"provider.token_allowance", "5000/s"}}));
  CHECK(occ_arrivals(r, Outcome::kRateLimited) > 0);
  CHECK(occ_arrivals(simulate_occ(occ_herd({{"provider.token_allowance", "5000/s"}})),
                     Outcome::kRateLimited) == 0);
  CHECK(r.recording.delivered + r.recording.dead_lettered + r.recording.unfinished == 50);
}

TEST_CASE("occ sim: a shard simulates the whole fleet and records only its own clients") {
  const Scenario s = occ_herd({});
  const Results whole = simulate_occ(s);
  SimOptions first;
  first.shard = Shard{0, 2};
  SimOptions second;
  second.shard = Shard{1, 2};
  const Results a = simulate_occ(s, first);
  const Results b = simulate_occ(s, second);
  CHECK(a.recording.items == 25);
  CHECK(b.recording.items == 25);
  CHECK(b.recording.delivered == 25);
  // The shards' recordings add up to the unsharded one: the same row, the same conflicts.
  CHECK(a.recording.requests + b.recording.requests == whole.recording.requests);
  CHECK(a.recording.writes + b.recording.writes == whole.recording.writes);
  CHECK(a.recording.delivered + b.recording.delivered == whole.recording.delivered);
  CHECK(simulate_scenario(s, second).recording.requests == b.recording.requests);
}
