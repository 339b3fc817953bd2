#include "model/limiter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "duration.hpp"
#include "saturating.hpp"

namespace stampede {

LimitVerdict FixedWindowLimiter::try_acquire(std::int64_t now_ns, std::int64_t cost) {
  const std::int64_t window = now_ns / rate_.window_ns;
  if (window != window_) {
    window_ = window;
    used_ = 0;
  }
  const std::int64_t reset = saturating_sub(saturating_mul(window + 1, rate_.window_ns), now_ns);
  if (cost <= rate_.count - used_) {
    used_ += cost;
    return {true, 0, rate_.count, rate_.count - used_, reset};
  }
  return {false, reset, rate_.count, rate_.count - used_, reset, cost > rate_.count};
}

void FixedWindowLimiter::refund(std::int64_t /*now_ns*/, std::int64_t admitted_ns,
                                std::int64_t units) {
  if (units <= 0 || admitted_ns / rate_.window_ns != window_) return;
  used_ -= std::min(units, used_);
}

LimitVerdict SlidingWindowLimiter::try_acquire(std::int64_t now_ns, std::int64_t cost) {
  // An admission at t counts for [t, t + window); a window of centuries, to the end of time.
  while (!admitted_.empty() && saturating_add(admitted_.front().t_ns, rate_.window_ns) <= now_ns) {
    used_ -= admitted_.front().cost;
    admitted_.pop_front();
  }
  const auto until_gone = [&](const Admission& a) {
    return saturating_sub(saturating_add(a.t_ns, rate_.window_ns), now_ns);
  };
  if (cost <= rate_.count - used_) {
    if (cost > 0) {
      admitted_.push_back({now_ns, cost});
      used_ += cost;
    }
    const std::int64_t reset = admitted_.empty() ? 0 : until_gone(admitted_.front());
    return {true, 0, rate_.count, rate_.count - used_, reset};
  }
  const std::int64_t reset = admitted_.empty() ? 0 : until_gone(admitted_.back());
  if (cost > rate_.count) return {false, 0, rate_.count, rate_.count - used_, reset, true};
  // Admissible once enough of the oldest admissions have left the window: for a cost of 1,
  // the oldest alone.
  std::int64_t free = rate_.count - used_;
  for (const Admission& a : admitted_) {
    free += a.cost;
    if (cost <= free) return {false, until_gone(a), rate_.count, rate_.count - used_, reset};
  }
  return {false, reset, rate_.count, rate_.count - used_, reset};  // unreachable: cost <= count
}

void SlidingWindowLimiter::refund(std::int64_t /*now_ns*/, std::int64_t admitted_ns,
                                  std::int64_t units) {
  // The admissions of that instant, newest first; one that left the window is not here.
  for (auto it = admitted_.rbegin(); units > 0 && it != admitted_.rend(); ++it) {
    if (it->t_ns < admitted_ns) break;
    if (it->t_ns != admitted_ns) continue;
    const std::int64_t back = std::min(units, it->cost);
    it->cost -= back;
    used_ -= back;
    units -= back;
  }
}

LimitVerdict TokenBucketLimiter::try_acquire(std::int64_t now_ns, std::int64_t cost) {
  const __int128 now = static_cast<__int128>(now_ns) * rate_.count;
  const __int128 interval = rate_.window_ns;  // window / count, scaled by count
  const __int128 limit = static_cast<__int128>(burst_) * interval;  // the most tat may lead now
  const __int128 tat = std::max(tat_scaled_, now);
  const auto to_ns = [&](__int128 scaled) {
    return static_cast<std::int64_t>((scaled + rate_.count - 1) / rate_.count);
  };
  const auto remaining_at = [&](__int128 t) {
    return static_cast<std::int64_t>((limit - (t - now)) / interval);
  };
  if (cost > burst_) return {false, 0, burst_, remaining_at(tat), to_ns(tat - now), true};
  const __int128 next_tat = tat + static_cast<__int128>(cost) * interval;
  if (next_tat - now > limit) {
    return {false, to_ns(next_tat - limit - now), burst_, remaining_at(tat), to_ns(tat - now)};
  }
  tat_scaled_ = next_tat;
  return {true, 0, burst_, remaining_at(next_tat), to_ns(next_tat - now)};
}

void TokenBucketLimiter::refund(std::int64_t now_ns, std::int64_t /*admitted_ns*/,
                                std::int64_t units) {
  if (units <= 0) return;
  const __int128 now = static_cast<__int128>(now_ns) * rate_.count;
  const __int128 back = static_cast<__int128>(std::min(units, burst_)) * rate_.window_ns;
  tat_scaled_ = std::max(now, tat_scaled_ - back);
}

std::int64_t default_burst(const Rate& rate) {
  // An allowance near 2^63/s has a per-second rate no int64 holds: the burst saturates.
  const double per_second = std::floor(rate.per_second());
  if (per_second >= 9e18) return std::numeric_limits<std::int64_t>::max();
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(per_second));
}

LimiterKind enforced_kind(LimiterKind kind, const Rate& rate, QuotaUnit unit) {
  if (kind != LimiterKind::kPerSecond) return kind;
  const bool whole_window = unit == QuotaUnit::kTokens || rate.window_ns <= kNsPerSec;
  return whole_window ? LimiterKind::kFixedWindow : LimiterKind::kTokenBucket;
}

std::unique_ptr<Limiter> make_limiter(LimiterKind kind, const Rate& rate,
                                      std::optional<std::int64_t> burst, QuotaUnit unit) {
  switch (enforced_kind(kind, rate, unit)) {
    case LimiterKind::kFixedWindow:
      return std::make_unique<FixedWindowLimiter>(rate);
    case LimiterKind::kSlidingWindow:
      return std::make_unique<SlidingWindowLimiter>(rate);
    case LimiterKind::kTokenBucket:
    case LimiterKind::kPerSecond:  // enforced as one of the others
      break;
  }
  return std::make_unique<TokenBucketLimiter>(rate, burst.value_or(default_burst(rate)));
}

std::unique_ptr<Limiter> make_split_token_limiter(LimiterKind kind, const Rate& rate) {
  if (kind == LimiterKind::kPerSecond)
    return std::make_unique<TokenBucketLimiter>(rate, rate.count);
  return make_limiter(kind, rate, rate.count, QuotaUnit::kTokens);
}

}  // namespace stampede
