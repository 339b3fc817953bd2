#pragma once

#include <cstdint>

#include "rng.hpp"
#include "scenario.hpp"

namespace stampede {

// What a strategy may look at: which retry this is and what the last delay was.
struct BackoffContext {
  std::int64_t attempt = 1;      // 1 is the first retry
  std::int64_t previous_ns = 0;  // the delay before the previous retry; 0 before the first
  double carry = 0;  // a strategy's own running value (Polly's V2 keeps its last point); 0 first
};

// One draw: the delay, and the strategy's running value to pass in the next context (the
// context's own carry when the strategy keeps none).
struct BackoffDraw {
  std::int64_t delay_ns = 0;
  double carry = 0;
};

// The parameters beyond base and cap that some libraries' formulas take.
struct BackoffShape {
  double multiplier = 2;       // growth per retry of the exponential family
  double randomization = 0;    // proportional jitter: the delay times uniform(1 - r, 1 + r)
  std::int64_t jitter_ns = 0;  // additive jitter: the delay plus uniform(0, jitter)
};

// A backoff strategy: stateless and const, so one object serves every client of both engines.
// The draw is fresh on every call, from the caller's stream.
class Backoff {
 public:
  Backoff(StrategyKind kind, std::int64_t base_ns, std::int64_t cap_ns, BackoffShape shape = {})
      : kind_(kind), base_ns_(base_ns), cap_ns_(cap_ns), shape_(shape) {}

  // The delay before retry ctx.attempt, with the carry for the retry after it.
  BackoffDraw next(const BackoffContext& ctx, Rng& rng) const;
  // min(cap, base * multiplier^(attempt-1)): exponential's delay, the jitter strategies' ceiling.
  std::int64_t ceiling(std::int64_t attempt) const;

  StrategyKind kind() const { return kind_; }
  std::int64_t base_ns() const { return base_ns_; }
  std::int64_t cap_ns() const { return cap_ns_; }

 private:
  std::int64_t proportional(std::int64_t attempt, Rng& rng) const;
  std::int64_t delay(const BackoffContext& ctx, Rng& rng) const;
  BackoffDraw decorrelated_v2(const BackoffContext& ctx, Rng& rng) const;

  StrategyKind kind_;
  std::int64_t base_ns_;
  std::int64_t cap_ns_;
  BackoffShape shape_;
};

}  // namespace stampede
