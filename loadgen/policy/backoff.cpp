#include "policy/backoff.hpp"

#include <algorithm>
#include <cmath>

#include "saturating.hpp"

namespace stampede {
namespace {

// A wait computed in floating point, clamped to [0, cap].
std::int64_t clamp_ns(double ns, std::int64_t cap_ns) {
  if (!(ns > 0)) return 0;
  if (ns >= static_cast<double>(cap_ns)) return cap_ns;
  return static_cast<std::int64_t>(ns);
}

}  // namespace

std::int64_t Backoff::ceiling(std::int64_t attempt) const {
  const std::int64_t shift = std::max<std::int64_t>(0, attempt - 1);
  if (shape_.multiplier != 2) {
    return clamp_ns(static_cast<double>(base_ns_) * std::pow(shape_.multiplier, shift), cap_ns_);
  }
  // Doubling past the cap (or past 63 bits) is the cap.
  if (shift >= 63 || base_ns_ > (cap_ns_ >> shift)) return cap_ns_;
  return std::min(cap_ns_, base_ns_ << shift);
}

// resilience4j's randomize(): d * (1 - r) + u * 2rd, u uniform in [0, 1).
std::int64_t Backoff::proportional(std::int64_t attempt, Rng& rng) const {
  const double d = static_cast<double>(ceiling(attempt));
  const double r = shape_.randomization;
  return clamp_ns(d * (1 - r + 2 * r * rng.unit()), INT64_MAX);
}

// Polly's DecorrelatedJitterBackoffV2: t = n - 1 + u, p(t) = 2^t tanh(sqrt(4t)); the delay is
// (p(t) - p(t_previous)) / 1.4 times the base, the median first delay.
BackoffDraw Backoff::decorrelated_v2(const BackoffContext& ctx, Rng& rng) const {
  const double t = static_cast<double>(ctx.attempt - 1) + rng.unit();
  const double point = std::pow(2.0, t) * std::tanh(std::sqrt(4.0 * t));
  return {clamp_ns((point - ctx.carry) / 1.4 * static_cast<double>(base_ns_), cap_ns_), point};
}

BackoffDraw Backoff::next(const BackoffContext& ctx, Rng& rng) const {
  if (kind_ == StrategyKind::kDecorrelatedJitterV2) return decorrelated_v2(ctx, rng);
  return {delay(ctx, rng), ctx.carry};
}

// The strategies without a running value.
std::int64_t Backoff::delay(const BackoffContext& ctx, Rng& rng) const {
  switch (kind_) {
    case StrategyKind::kNone:
      return 0;
    case StrategyKind::kFixed:
      return std::min(base_ns_, cap_ns_);
    case StrategyKind::kExponential:
      return ceiling(ctx.attempt);
    case StrategyKind::kFullJitter:
      return rng.uniform(0, saturating_add(ceiling(ctx.attempt), 1));
    case StrategyKind::kEqualJitter: {
      const std::int64_t d = ceiling(ctx.attempt);
      return d / 2 + rng.uniform(0, d - d / 2 + 1);
    }
    case StrategyKind::kDecorrelatedJitter: {
      const std::int64_t previous = ctx.previous_ns > 0 ? ctx.previous_ns : base_ns_;
      // previous may be a Retry-After the policy followed: any size.
      const std::int64_t upper = saturating_mul(std::min(previous, cap_ns_), 3);
      return std::min(cap_ns_, rng.uniform(base_ns_, saturating_add(upper, 1)));
    }
    case StrategyKind::kProportionalJitter:
      return proportional(ctx.attempt, rng);
    case StrategyKind::kGrpcGoJitter:
      // grpc-go's Exponential.Backoff(0) returns BaseDelay itself, unjittered.
      return ctx.attempt <= 1 ? base_ns_ : proportional(ctx.attempt, rng);
    case StrategyKind::kAdditiveJitter: {
      const std::int64_t noise = rng.uniform(0, saturating_add(shape_.jitter_ns, 1));
      const std::int64_t d = ceiling(ctx.attempt);
      return d > cap_ns_ - noise ? cap_ns_ : d + noise;
    }
    case StrategyKind::kDecorrelatedJitterV2:
      break;  // next() draws it, with its carry
  }
  return 0;
}

}  // namespace stampede
