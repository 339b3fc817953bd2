#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "policy/advise.hpp"

using namespace stampede;

namespace {

// The seed's fleet: 400 workers, 4000/min, base 1 s, cap 8 s, five attempts.
AdviceInput seed_fleet(StrategyKind strategy) {
  AdviceInput in;
  in.clients = 400;
  in.allowance = Rate{4000, 60 * kNsPerSec};
  in.strategy = strategy;
  in.base_ns = kNsPerSec;
  in.cap_ns = 8 * kNsPerSec;
  in.max_attempts = 5;
  return in;
}

}  // namespace

TEST_CASE("advise reproduces the seed's full-jitter arithmetic") {
  const auto in = seed_fleet(StrategyKind::kFullJitter);
  const auto a = advise(in);
  CHECK(a.allowance_per_s == doctest::Approx(66.667).epsilon(1e-4));
  REQUIRE(a.rounds.size() == 5);
  const double rates[] = {400, 200, 100, 50, 50};
  const bool fits[] = {false, false, false, true, true};
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(a.rounds[i].attempt == static_cast<std::int64_t>(i) + 1);
    CHECK(a.rounds[i].rate_per_s == doctest::Approx(rates[i]));
    CHECK(a.rounds[i].fits == fits[i]);
  }
  CHECK(a.first_fitting_round == 4);
  REQUIRE(a.min_base_s);
  CHECK(*a.min_base_s == doctest::Approx(6.0));
  REQUIRE(a.worst_wait_s);
  CHECK(*a.worst_wait_s == doctest::Approx(23.0));  // 1 + 2 + 4 + 8 + 8
  CHECK(*a.typical_wait_s == doctest::Approx(11.5));
  CHECK_FALSE(a.deficit_per_min);
}

TEST_CASE("the other strategies' windows, as the seed divides them") {
  struct Row {
    StrategyKind strategy;
    double round3_rate;
    bool has_min_base;
  };
  for (const Row& r : {Row{StrategyKind::kEqualJitter, 200, true},    // [2 s, 4 s]
                       Row{StrategyKind::kExponential, 8000, false},  // 400 within 50 ms
                       Row{StrategyKind::kFixed, 8000, false}}) {
    CAPTURE(static_cast<int>(r.strategy));
    const auto a = advise(seed_fleet(r.strategy));
    CHECK(a.rounds.at(2).rate_per_s == doctest::Approx(r.round3_rate));
    CHECK(a.min_base_s.has_value() == r.has_min_base);
  }
  // Equal jitter's first window is half the base: it needs twice the base.
  CHECK(*advise(seed_fleet(StrategyKind::kEqualJitter)).min_base_s == doctest::Approx(12.0));
  // Exponential waits the whole delay: worst and typical agree.
  const auto exp = advise(seed_fleet(StrategyKind::kExponential));
  CHECK(*exp.worst_wait_s == doctest::Approx(23.0));
  CHECK(*exp.typical_wait_s == doctest::Approx(23.0));
}

TEST_CASE("a base of clients / allowance puts the first round inside the allowance") {
  auto in = seed_fleet(StrategyKind::kFullJitter);
  in.base_ns = 6 * kNsPerSec;
  const auto a = advise(in);
  CHECK(a.first_fitting_round == 1);
  CHECK(a.rounds[0].rate_per_s <= a.allowance_per_s);
}

TEST_CASE("demand above the allowance is a deficit and a growing backlog") {
  auto in = seed_fleet(StrategyKind::kFullJitter);
  in.demand = Rate{8000, 60 * kNsPerSec};
  in.horizon_ns = 10 * 60 * kNsPerSec;
  const auto a = advise(in);
  CHECK(*a.deficit_per_min == doctest::Approx(4000));
  CHECK(*a.backlog == doctest::Approx(40'000));  // the seed's ten minutes
  in.demand = Rate{1000, 60 * kNsPerSec};
  CHECK(*advise(in).deficit_per_min == 0);
}

TEST_CASE("unbounded attempts list rounds up to the cap and have no worst case") {
  auto in = seed_fleet(StrategyKind::kFullJitter);
  in.max_attempts = 0;
  const auto a = advise(in);
  CHECK(a.rounds.size() >= 4);
  CHECK_FALSE(a.worst_wait_s);
  CHECK(format_advice(in, a).find("unbounded") != std::string::npos);
}

TEST_CASE("advice JSON and text carry the same numbers") {
  const auto in = seed_fleet(StrategyKind::kFullJitter);
  const auto a = advise(in);
  const auto j = to_json(in, a);
  CHECK(j.at("allowance_per_s").get<double>() == doctest::Approx(66.667).epsilon(1e-4));
  CHECK(j.at("first_fitting_round") == 4);
  CHECK(j.at("min_base_s").get<double>() == doctest::Approx(6.0));
  CHECK(j.at("worst_wait_s").get<double>() == doctest::Approx(23.0));
  CHECK(j.at("rounds").size() == 5);
  CHECK(j.at("deficit_per_min").is_null());
  const auto text = format_advice(in, a);
  for (const char* want : {"66.7/s", "first round that fits: 4", "6.0s", "worst case 23.0s"}) {
    CAPTURE(want);
    CHECK(text.find(want) != std::string::npos);
  }
}

TEST_CASE("advise says what width each rate is over, beside simulate's 1 s bins") {
  // The same lockstep round two ways: 400 sends within 50 ms are 8000/s over those 50 ms
  // (120x), and 400 in the one-second bin simulate counts (6.0x). Both are said, and which.
  struct Row {
    StrategyKind strategy;
    double window_s, rate, per_1s_bin;
    const char* line;  // round 1's line, after "round  1: "
  };
  for (const Row& r : {
           Row{StrategyKind::kExponential, 0.05, 8000, 400,
               "window   0.050s ->    8000.0/s  120.0x the allowance over 0.050s, 6.0x in a 1 s "
               "bin\n"},
           Row{StrategyKind::kFullJitter, 1, 400, 400,
               "window   1.000s ->     400.0/s  6.0x the allowance\n"},
           Row{StrategyKind::kEqualJitter, 0.5, 800, 400,
               "window   0.500s ->     800.0/s  12.0x the allowance over 0.500s, 6.0x in a 1 s "
               "bin\n"},
       }) {
    const auto in = seed_fleet(r.strategy);
    const auto a = advise(in);
    CAPTURE(r.line);
    CHECK(a.rounds.at(0).window_s == doctest::Approx(r.window_s));
    CHECK(a.rounds.at(0).rate_per_s == doctest::Approx(r.rate));
    CHECK(a.rounds.at(0).per_1s_bin == doctest::Approx(r.per_1s_bin));
    CHECK(to_json(in, a).at("rounds")[0].at("per_1s_bin").get<double>() ==
          doctest::Approx(r.per_1s_bin));
    const auto text = format_advice(in, a);
    CHECK(text.find(std::string("round  1: ") + r.line) != std::string::npos);
    CHECK(text.find("a rate is over that window, simulate's peaks over 1 s bins") !=
          std::string::npos);
  }
}
