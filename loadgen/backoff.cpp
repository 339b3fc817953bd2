#include "backoff.hpp"

#include <algorithm>

namespace stampede {

std::int64_t Backoff::ceiling(std::int64_t attempt) const {
  const std::int64_t shift = std::max<std::int64_t>(0, attempt - 1);
  // Doubling past the cap (or past 63 bits) is the cap.
  if (shift >= 63 || base_ns_ > (cap_ns_ >> shift)) return cap_ns_;
  return std::min(cap_ns_, base_ns_ << shift);
}

std::int64_t Backoff::next(const BackoffContext& ctx, Rng& rng) const {
  switch (kind_) {
    case StrategyKind::kNone:
      return 0;
    case StrategyKind::kFixed:
      return std::min(base_ns_, cap_ns_);
    case StrategyKind::kExponential:
      return ceiling(ctx.attempt);
    case StrategyKind::kFullJitter:
      return rng.uniform(0, ceiling(ctx.attempt) + 1);
    case StrategyKind::kEqualJitter: {
      const std::int64_t d = ceiling(ctx.attempt);
      return d / 2 + rng.uniform(0, d - d / 2 + 1);
    }
    case StrategyKind::kDecorrelatedJitter: {
      const std::int64_t previous = ctx.previous_ns > 0 ? ctx.previous_ns : base_ns_;
      const std::int64_t upper = std::min(previous, cap_ns_) * 3;
      return std::min(cap_ns_, rng.uniform(base_ns_, upper + 1));
    }
  }
  return 0;
}

}  // namespace stampede
