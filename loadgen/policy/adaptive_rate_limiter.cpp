#include "policy/adaptive_rate_limiter.hpp"

#include <algorithm>
#include <cmath>

#include "saturating.hpp"

namespace stampede {
namespace {

constexpr double kMinFillRate = 0.5;
constexpr double kMaxRateAdjustScale = 2.0;
constexpr double kSmoothing = 0.8;
constexpr double kBucketsPerSecond = 2;  // a time bucket of 0.5 s
constexpr double kScaleConstant = 0.4;
constexpr double kBeta = 0.7;

double seconds(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace

void AdaptiveRateLimiter::refill(double t) {
  if (last_refill_s_ < 0) {
    last_refill_s_ = t;
    return;
  }
  capacity_ = std::min(max_capacity_, capacity_ + std::max(0.0, t - last_refill_s_) * fill_rate_);
  last_refill_s_ = std::max(last_refill_s_, t);
}

void AdaptiveRateLimiter::set_max_rate(double rate, double t) {
  refill(t);  // tokens earned so far are earned at the old rate
  fill_rate_ = std::max(rate, kMinFillRate);
  max_capacity_ = std::max(rate, 1.0);
  capacity_ = std::min(capacity_, max_capacity_);
}

std::int64_t AdaptiveRateLimiter::acquire(std::int64_t at_ns) {
  if (!enabled_) return at_ns;
  const double t = seconds(at_ns);
  refill(t);
  if (capacity_ >= 1) {
    capacity_ -= 1;
    return at_ns;
  }
  // Wait for the missing part of a token, then take it whole; a send planned before the last
  // token was taken waits from then.
  const double from = std::max(t, last_refill_s_);
  const double wait_s = (1 - capacity_) / fill_rate_;
  capacity_ = 0;
  last_refill_s_ = from + wait_s;
  return saturating_add(at_ns, saturating_ns(std::ceil((from - t + wait_s) * 1e9)));
}

double AdaptiveRateLimiter::measure(double t) {
  const double bucket = std::floor(t * kBucketsPerSecond) / kBucketsPerSecond;
  count_ += 1;
  if (bucket > last_bucket_s_) {
    const double current = count_ / (bucket - last_bucket_s_);
    measured_rate_ = current * kSmoothing + measured_rate_ * (1 - kSmoothing);
    count_ = 0;
    last_bucket_s_ = bucket;
  }
  return measured_rate_;
}

double AdaptiveRateLimiter::cubic_success(double t) const {
  return kScaleConstant * std::pow(t - last_fail_s_ - k_, 3) + w_max_;
}

double AdaptiveRateLimiter::cubic_error(double rate, double t) {
  w_max_ = rate;
  k_ = std::cbrt(w_max_ * (1 - kBeta) / kScaleConstant);
  last_fail_s_ = t;
  return rate * kBeta;
}

void AdaptiveRateLimiter::on_response(std::int64_t now_ns, bool throttled) {
  const double t = seconds(now_ns);
  const double measured = measure(t);
  double rate = 0;
  if (!throttled) {
    rate = cubic_success(t);
  } else {
    rate = cubic_error(enabled_ ? std::min(measured, fill_rate_) : measured, t);
    enabled_ = true;
  }
  set_max_rate(std::min(rate, kMaxRateAdjustScale * measured), t);
}

}  // namespace stampede
