#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rate.hpp"
#include "scenario.hpp"

namespace stampede {

struct AdviceInput {
  std::int64_t clients = 0;
  Rate allowance;
  StrategyKind strategy = StrategyKind::kFullJitter;
  std::int64_t base_ns = 0;
  std::int64_t cap_ns = 0;
  std::int64_t max_attempts = 0;              // 0 = unbounded
  std::optional<Rate> demand;                 // sustained demand, for the deficit
  std::int64_t horizon_ns = 600'000'000'000;  // backlog after this long
  // How far apart a lockstep fleet's arrivals land without jitter: timer and clock spread.
  std::int64_t lockstep_spread_ns = 50'000'000;
};

struct RetryRound {
  std::int64_t attempt = 0;
  double window_s = 0;    // the width the round's arrivals are spread over
  double rate_per_s = 0;  // over the window: a lockstep round's 50 ms spike, scaled to /s
  bool fits = false;
  double per_1s_bin = 0;  // the round's arrivals in its busiest second, as simulate counts
};

// The fleet arithmetic: each retry round spreads the whole fleet over the strategy's window,
// so its arrival rate is clients / window; a round fits when that is within the allowance.
struct Advice {
  double allowance_per_s = 0;
  std::vector<RetryRound> rounds;
  std::optional<std::int64_t> first_fitting_round;
  std::optional<double> min_base_s;    // none: without jitter no base spreads a round
  std::optional<double> worst_wait_s;  // none: unbounded attempts
  std::optional<double> typical_wait_s;
  std::optional<double> deficit_per_min;  // demand above the allowance
  std::optional<double> backlog;          // items left after horizon
};

Advice advise(const AdviceInput& in);
nlohmann::json to_json(const AdviceInput& in, const Advice& a);
std::string format_advice(const AdviceInput& in, const Advice& a);

}  // namespace stampede
