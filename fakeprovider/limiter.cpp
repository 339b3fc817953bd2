#include "limiter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "duration.hpp"

namespace stampede {

LimitVerdict FixedWindowLimiter::try_acquire(std::int64_t now_ns) {
  const std::int64_t window = now_ns / rate_.window_ns;
  if (window != window_) {
    window_ = window;
    used_ = 0;
  }
  const std::int64_t reset = (window + 1) * rate_.window_ns - now_ns;
  if (used_ < rate_.count) {
    ++used_;
    return {true, 0, rate_.count, rate_.count - used_, reset};
  }
  return {false, reset, rate_.count, 0, reset};
}

LimitVerdict SlidingWindowLimiter::try_acquire(std::int64_t now_ns) {
  // An admission at t counts for [t, t + window).
  while (!admitted_.empty() && admitted_.front() + rate_.window_ns <= now_ns) {
    admitted_.pop_front();
  }
  const auto used = static_cast<std::int64_t>(admitted_.size());
  if (used < rate_.count) {
    admitted_.push_back(now_ns);
    const std::int64_t reset = admitted_.front() + rate_.window_ns - now_ns;
    return {true, 0, rate_.count, rate_.count - used - 1, reset};
  }
  const std::int64_t wait = admitted_.front() + rate_.window_ns - now_ns;
  return {false, wait, rate_.count, 0, admitted_.back() + rate_.window_ns - now_ns};
}

LimitVerdict TokenBucketLimiter::try_acquire(std::int64_t now_ns) {
  const __int128 now = static_cast<__int128>(now_ns) * rate_.count;
  const __int128 interval = rate_.window_ns;  // window / count, scaled by count
  const __int128 tolerance = static_cast<__int128>(burst_ - 1) * interval;
  const __int128 tat = std::max(tat_scaled_, now);
  const auto to_ns = [&](__int128 scaled) {
    return static_cast<std::int64_t>((scaled + rate_.count - 1) / rate_.count);
  };
  if (tat - now > tolerance) {
    return {false, to_ns(tat - tolerance - now), burst_, 0, to_ns(tat - now)};
  }
  tat_scaled_ = tat + interval;
  const auto remaining =
      static_cast<std::int64_t>((tolerance + interval - (tat_scaled_ - now)) / interval);
  return {true, 0, burst_, remaining, to_ns(tat_scaled_ - now)};
}

std::int64_t default_burst(const Rate& rate) {
  // An allowance near 2^63/s has a per-second rate no int64 holds: the burst saturates.
  const double per_second = std::floor(rate.per_second());
  if (per_second >= 9e18) return std::numeric_limits<std::int64_t>::max();
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(per_second));
}

std::unique_ptr<Limiter> make_limiter(LimiterKind kind, const Rate& rate,
                                      std::optional<std::int64_t> burst) {
  switch (kind) {
    case LimiterKind::kFixedWindow:
      return std::make_unique<FixedWindowLimiter>(rate);
    case LimiterKind::kSlidingWindow:
      return std::make_unique<SlidingWindowLimiter>(rate);
    case LimiterKind::kTokenBucket:
      break;
  }
  return std::make_unique<TokenBucketLimiter>(rate, burst.value_or(default_burst(rate)));
}

}  // namespace stampede
