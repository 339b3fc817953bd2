#pragma once

#include <cstdint>

namespace stampede {

// The AWS SDKs' adaptive retry mode: a client-side token bucket whose fill rate follows CUBIC
// (botocore retries/adaptive.py, throttling.py, bucket.py). Off until the first throttling
// answer; then each send waits for a token, each throttle cuts the rate to beta times the
// rate measured when it came, and each success grows it along the cubic towards that rate
// and past it. Times are the scenario's, in nanoseconds; rates are per second, as botocore's.
class AdaptiveRateLimiter {
 public:
  // When a send planned for at_ns may go (at_ns itself while the limiter is off); takes the
  // token.
  std::int64_t acquire(std::int64_t at_ns);
  // The same time, taking no token (nor refilling).
  std::int64_t peek(std::int64_t at_ns) const {
    AdaptiveRateLimiter copy = *this;
    return copy.acquire(at_ns);
  }

  void on_response(std::int64_t now_ns, bool throttled);

  bool enabled() const { return enabled_; }
  double fill_rate() const { return fill_rate_; }
  double measured_rate() const { return measured_rate_; }

 private:
  void refill(double t);
  void set_max_rate(double rate, double t);
  double measure(double t);
  double cubic_success(double t) const;
  double cubic_error(double rate, double t);

  bool enabled_ = false;
  // The token bucket (bucket.py TokenBucket(max_rate=1)).
  double fill_rate_ = 1;
  double max_capacity_ = 1;
  double capacity_ = 0;
  double last_refill_s_ = -1;  // < 0: not yet filled
  // The send-rate meter (adaptive.py RateClocker): half-second buckets, smoothing 0.8.
  double measured_rate_ = 0;
  double last_bucket_s_ = 0;
  double count_ = 0;
  // The cubic (throttling.py CubicCalculator(starting_max_rate=0, start_time=0)).
  double w_max_ = 0;
  double k_ = 0;
  double last_fail_s_ = 0;
};

}  // namespace stampede
