#pragma once

#include <cstdint>

#include "rng.hpp"
#include "scenario.hpp"

namespace stampede {

// What a strategy may look at: which retry this is and what the last delay was.
struct BackoffContext {
  std::int64_t attempt = 1;      // 1 is the first retry
  std::int64_t previous_ns = 0;  // the delay before the previous retry; 0 before the first
};

// A backoff strategy: stateless and const, so one object serves every client of both engines.
// The draw is fresh on every call, from the caller's stream.
class Backoff {
 public:
  Backoff(StrategyKind kind, std::int64_t base_ns, std::int64_t cap_ns)
      : kind_(kind), base_ns_(base_ns), cap_ns_(cap_ns) {}

  std::int64_t next(const BackoffContext& ctx, Rng& rng) const;
  // min(cap, base * 2^(attempt-1)): exponential's delay, the jitter strategies' ceiling.
  std::int64_t ceiling(std::int64_t attempt) const;

  StrategyKind kind() const { return kind_; }
  std::int64_t base_ns() const { return base_ns_; }
  std::int64_t cap_ns() const { return cap_ns_; }

 private:
  StrategyKind kind_;
  std::int64_t base_ns_;
  std::int64_t cap_ns_;
};

}  // namespace stampede
