#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "policy/arrival_schedule.hpp"
#include "sim/sim_engine.hpp"
#include "stages.hpp"
#include "support/process.hpp"

using namespace stampede;

namespace {

Scenario storm(StrategyKind strategy, std::uint64_t seed = 1) {
  auto s = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE_MESSAGE(s, s.error());
  Scenario out = *s;
  out.fleet.strategy = strategy;
  out.fleet.seed = seed;
  REQUIRE(validate(out).empty());
  return out;
}

// Every second with arrivals at the provider, as (second, arrivals).
std::vector<std::pair<std::int64_t, std::int64_t>> busy_seconds(const Results& r) {
  const auto& h = r.recording.provider_by_outcome;
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::size_t b = 0; b < h.bins(); ++b) {
    if (h.bin_total(b) > 0)
      out.emplace_back(static_cast<std::int64_t>(b) * h.bin_ns() / kNsPerSec, h.bin_total(b));
  }
  return out;
}

std::int64_t at(const Results& r, std::int64_t second, Outcome o) {
  return r.recording.provider_by_outcome.at(static_cast<std::size_t>(second),
                                            static_cast<std::size_t>(o));
}

void check_every_item_accounted_for(const Results& r, std::int64_t items) {
  CHECK(r.recording.items == items);
  CHECK(r.recording.unfinished == 0);
  // The open model drops what finds no free client: it is never sent.
  CHECK(r.recording.delivered + r.recording.dead_lettered + r.recording.dropped == items);
  CHECK(r.recording.provider_by_outcome.total() == r.recording.requests);
  CHECK(r.recording.client_by_outcome.total() == r.recording.requests);
  CHECK(r.recording.sends_per_item.count() == items - r.recording.dropped);
}

}  // namespace

TEST_CASE("the reference storm without jitter reproduces the published numbers exactly") {
  const Results r = simulate(storm(StrategyKind::kExponential));
  CHECK(r.summary.requests == 10'500);
  CHECK(r.summary.delivered == 1000);
  CHECK(r.summary.dead_lettered == 0);
  CHECK(r.summary.peak_second == 31);
  CHECK(r.summary.peak_arrivals == 1000);
  CHECK(r.summary.peak_ratio == 10);
  CHECK(r.summary.drain_s == 543);
  CHECK(r.summary.amplification == 10.5);
  // The outage's five rounds, then a wave every minute, 100 fewer each time.
  const std::vector<std::pair<std::int64_t, std::int64_t>> waves{
      {0, 1000},  {1, 1000},  {3, 1000},  {7, 1000},  {15, 1000}, {31, 1000}, {63, 900}, {123, 800},
      {183, 700}, {243, 600}, {303, 500}, {363, 400}, {423, 300}, {483, 200}, {543, 100}};
  CHECK(busy_seconds(r) == waves);
  for (std::int64_t s : {0, 1, 3, 7, 15}) CHECK(at(r, s, Outcome::kUnavailable) == 1000);
  for (std::int64_t k = 0; k < 10; ++k) {
    const std::int64_t second = k == 0 ? 31 : 3 + 60 * k;
    CAPTURE(second);
    CHECK(at(r, second, Outcome::kOk) == 100);
    CHECK(at(r, second, Outcome::kRateLimited) == 900 - 100 * k);
  }
  check_every_item_accounted_for(r, 1000);
}

TEST_CASE("the reference storm with full jitter passes the chapter's checks for seeds 1, 2, 3") {
  for (std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    const Results r = simulate(storm(StrategyKind::kFullJitter, seed));
    CHECK(r.summary.delivered == 1000);
    CHECK(r.summary.peak_ratio <= 2);
    CHECK(r.summary.drain_s <= 120);
    CHECK(r.summary.requests < 10'000);
    check_every_item_accounted_for(r, 1000);
    CHECK(r.recording.dead_lettered == 0);
    // The peak is after the outage, and no second after it sees more than twice the allowance.
    CHECK(r.summary.peak_second >= 30);
    for (const auto& [second, n] : busy_seconds(r)) {
      if (second >= 30) CHECK(n <= 200);
    }
  }
}

TEST_CASE("the same seed gives byte-identical results, another seed does not") {
  for (const auto strategy : {StrategyKind::kFullJitter, StrategyKind::kDecorrelatedJitter}) {
    CAPTURE(static_cast<int>(strategy));
    const auto a = to_json(simulate(storm(strategy, 7))).dump();
    const auto b = to_json(simulate(storm(strategy, 7))).dump();
    const auto c = to_json(simulate(storm(strategy, 8))).dump();
    CHECK(a == b);
    CHECK(a != c);
  }
}

TEST_CASE("steady and queue workloads finish every item: delivered, dead-lettered or dropped") {
  struct Row {
    std::string what;
    WorkloadKind workload;
    std::int64_t clients;
    std::optional<std::int64_t> items;
    std::optional<Rate> rate;
    std::optional<std::int64_t> duration_ns;
    std::int64_t max_attempts;
    std::int64_t expected_items;
  };
  for (const Row& r : {
           Row{"steady above the allowance, capped attempts", WorkloadKind::kSteady, 10,
               std::nullopt, Rate{80, kNsPerSec}, 20 * kNsPerSec, 4, 1600},
           Row{"steady within the allowance", WorkloadKind::kSteady, 5, std::nullopt,
               Rate{20, kNsPerSec}, 60 * kNsPerSec, 0, 1200},
           Row{"queue drained by workers", WorkloadKind::kQueue, 20, 500, std::nullopt,
               std::nullopt, 0, 500},
           Row{"queue, capped attempts", WorkloadKind::kQueue, 50, 2000, std::nullopt, std::nullopt,
               2, 2000},
       }) {
    CAPTURE(r.what);
    Scenario s;
    s.provider.allowance = Rate{50, kNsPerSec};
    s.provider.outages = {{0, 10 * kNsPerSec, OutageAction::kStatus503}};
    s.fleet.workload = r.workload;
    s.fleet.clients = r.clients;
    s.fleet.items = r.items;
    s.fleet.rate = r.rate;
    s.fleet.duration_ns = r.duration_ns;
    s.fleet.strategy = StrategyKind::kFullJitter;
    s.fleet.base_ns = kNsPerSec;
    s.fleet.cap_ns = 8 * kNsPerSec;
    s.fleet.max_attempts = r.max_attempts;
    REQUIRE(validate(s).empty());
    const Results res = simulate(s);
    check_every_item_accounted_for(res, r.expected_items);
    CHECK(res.recording.delivered > 0);
    if (r.max_attempts == 0) CHECK(res.recording.dead_lettered == 0);
    if (r.max_attempts > 0) {
      CHECK(res.recording.sends_per_item.max() <= r.max_attempts + 1);
    }
    // No item is served before it arrives: the steady items' latencies count from then.
    CHECK(res.recording.item_latency_ns.min() >= 0);
  }
}

TEST_CASE("a provider answering 400 to everything dead-letters every item after one send") {
  for (const auto workload : {WorkloadKind::kStorm, WorkloadKind::kQueue}) {
    CAPTURE(static_cast<int>(workload));
    Scenario s;
    s.provider.error_rate = 1;
    s.fleet.workload = workload;
    s.fleet.clients = 50;
    s.fleet.items = 300;
    s.fleet.strategy = StrategyKind::kExponential;
    const Results r = simulate(s);
    CHECK(r.summary.requests == 300);
    CHECK(r.summary.dead_lettered == 300);
    CHECK(r.summary.delivered == 0);
    CHECK(r.recording.sends_per_item.max() == 1);
    CHECK(r.recording.provider_by_outcome.at(0, static_cast<std::size_t>(Outcome::kClientError)) ==
          300);
    check_every_item_accounted_for(r, 300);
  }
}

TEST_CASE("the deadline bounds every item's life in the simulation") {
  Scenario s = storm(StrategyKind::kExponential);
  s.fleet.deadline_ns = 100 * kNsPerSec;
  const Results r = simulate(s);
  check_every_item_accounted_for(r, 1000);
  CHECK(r.recording.dead_lettered > 0);
  // Every send at the provider falls within the first send's 100 s.
  CHECK(r.recording.provider_by_outcome.bins() <= 101);
  CHECK(r.summary.drain_s <= 100);
}

TEST_CASE("an answer slower than the client's timeout is a timeout, and retried") {
  Scenario s;
  s.provider.latency_min_ns = 2 * kNsPerSec;
  s.provider.latency_max_ns = 2 * kNsPerSec;
  s.fleet.clients = 10;
  s.fleet.timeout_ns = kNsPerSec;
  s.fleet.max_attempts = 2;
  s.fleet.strategy = StrategyKind::kFixed;
  const Results r = simulate(s);
  CHECK(r.summary.dead_lettered == 10);
  CHECK(r.summary.requests == 30);
  CHECK(r.recording.client_by_outcome.total() == 30);
  std::int64_t timeouts = 0;
  for (std::size_t b = 0; b < r.recording.client_by_outcome.bins(); ++b) {
    timeouts += r.recording.client_by_outcome.at(b, static_cast<std::size_t>(Outcome::kTimeout));
  }
  CHECK(timeouts == 30);
}

TEST_CASE("items still going at the horizon are reported unfinished") {
  SimOptions options;
  options.horizon_ns = 100 * kNsPerSec;
  const Results r = simulate(storm(StrategyKind::kExponential), options);
  CHECK(r.recording.delivered == 200);  // the waves at 31 s and 63 s
  CHECK(r.recording.unfinished == 800);
  CHECK(r.summary.unfinished == 800);
}

namespace {

// 30 clients at t=0, 100 tokens each, against 1,000 tokens a minute: 10 served, 20 told to
// come back at the next window; a spend cap of `cap` tokens ends it.
Scenario llm_storm(std::int64_t spend_cap) {
  Scenario s;
  s.fleet.clients = 30;
  s.fleet.tokens = 100;
  s.fleet.strategy = StrategyKind::kExponential;
  s.fleet.retry_after = RetryAfterMode::kExact;
  s.fleet.max_attempts = 10;  // a spend cap retried would run into this, not forever
  s.provider.token_allowance = Rate{1000, 60 * kNsPerSec};
  s.provider.spend_cap = spend_cap;
  REQUIRE(validate(s).empty());
  return s;
}

std::int64_t arrivals(const Results& r, Outcome o) {
  std::int64_t n = 0;
  for (std::size_t b = 0; b < r.recording.provider_by_outcome.bins(); ++b)
    n += r.recording.provider_by_outcome.at(b, static_cast<std::size_t>(o));
  return n;
}

}  // namespace

TEST_CASE("simulated LLM quotas: a tokens-per-minute 429 is retried, a spend-cap 429 never") {
  const Results r = simulate(llm_storm(1500));
  check_every_item_accounted_for(r, 30);
  // Window 1: 10 served, 20 refused for tokens. Window 2: 5 more, then the cap (1,500 tokens)
  // refuses the other 15 once each, and they are given up: 50 requests, no more.
  CHECK(r.recording.delivered == 15);
  CHECK(r.recording.dead_lettered == 15);
  CHECK(r.recording.requests == 50);
  CHECK(arrivals(r, Outcome::kOk) == 15);
  CHECK(arrivals(r, Outcome::kRateLimited) == 35);
  CHECK(r.recording.sends_per_item.max() == 2);
}

TEST_CASE("simulated LLM quotas: items refused by the spend cap on their first send get one") {
  const Results r = simulate(llm_storm(500));
  check_every_item_accounted_for(r, 30);
  CHECK(r.recording.delivered == 5);
  CHECK(r.recording.dead_lettered == 25);
  CHECK(r.recording.requests == 30);
  CHECK(r.recording.sends_per_item.max() == 1);
}

TEST_CASE("the LLM quotas example meets its expectations: the capped items are given up") {
  auto s = load_scenario_file(support::source_path("examples/llm_quotas.json"));
  REQUIRE_MESSAGE(s, s.error());
  const Results r = simulate(*s);
  check_every_item_accounted_for(r, 200);
  CHECK(r.recording.delivered == 150);
  CHECK(r.recording.dead_lettered == 50);
}

namespace {

Scenario open_model(std::int64_t clients) {
  Scenario s;
  s.provider.allowance = Rate{80, kNsPerSec};
  s.provider.outages = {{10 * kNsPerSec, 15 * kNsPerSec, OutageAction::kStatus503}};
  s.fleet.workload = WorkloadKind::kSteady;
  s.fleet.clients = clients;
  s.fleet.rate = Rate{100, kNsPerSec};
  s.fleet.duration_ns = 60 * kNsPerSec;
  s.fleet.strategy = StrategyKind::kFullJitter;
  s.fleet.base_ns = kNsPerSec;
  s.fleet.cap_ns = 8 * kNsPerSec;
  REQUIRE(validate(s).empty());
  return s;
}

}  // namespace

TEST_CASE("steady is an open model: arrivals that find every client in its backoff are dropped") {
  const Results small = simulate(open_model(50));
  const auto& rec = small.recording;
  CHECK(rec.items == 6000);
  CHECK(rec.dropped > 0);
  CHECK(rec.delivered + rec.dead_lettered + rec.unfinished + rec.dropped == rec.items);
  CHECK(small.summary.dropped == static_cast<double>(rec.dropped));
  CHECK(small.summary.dropped_ratio == doctest::Approx(static_cast<double>(rec.dropped) / 6000));
  // What did arrive is timed from its arrival, not from behind another item's backoff: before
  // the open model the median item waited 8 s here.
  CHECK(small.summary.p50_s < 0.5);
  const auto doc = to_json(small);
  CHECK(doc.at("counts").at("dropped") == rec.dropped);
  // A pool the outage cannot exhaust drops nothing and delivers everything.
  const Results big = simulate(open_model(2000));
  CHECK(big.recording.dropped == 0);
  CHECK(big.recording.delivered == 6000);
}

TEST_CASE("the open model is deterministic: the same seed, the same bytes") {
  for (const bool stages : {false, true}) {
    CAPTURE(stages);
    auto s = open_model(50);
    if (stages) {
      s.fleet.rate.reset();
      s.fleet.duration_ns.reset();
      s.fleet.stages = *parse_stages("10s:50/s,20s:150/s,10s:0/s");
      REQUIRE(validate(s).empty());
    }
    const auto a = to_json(simulate(s)).dump();
    CHECK(a == to_json(simulate(s)).dump());
    s.fleet.seed = 2;
    CHECK(a != to_json(simulate(s)).dump());
  }
}

TEST_CASE("stages: with clients to spare, the first sends per second are the ramp's arrivals") {
  Scenario s;
  s.fleet.clients = 1000;
  REQUIRE_FALSE(set_field(s, "fleet.stages", "5s:20/s,5s:20/s,5s:0/s"));
  REQUIRE(validate(s).empty());
  const Results r = simulate(s);
  CHECK(r.recording.dropped == 0);
  CHECK(r.recording.delivered == 50 + 100 + 50);
  const ArrivalSchedule schedule(s.fleet);
  std::vector<std::int64_t> expected(15, 0);
  for (std::int64_t k = 0; k < schedule.total(); ++k)
    ++expected[static_cast<std::size_t>(schedule.at_ns(k) / kNsPerSec)];
  for (std::size_t second = 0; second < expected.size(); ++second) {
    CAPTURE(second);
    CHECK(r.recording.client_by_send.at(second, 0) == expected[second]);
  }
}
