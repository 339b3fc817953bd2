#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "duration.hpp"
#include "policy/adaptive_rate_limiter.hpp"
#include "policy/adaptive_throttle.hpp"
#include "policy/retry_policy.hpp"
#include "policy/retry_quota.hpp"
#include "policy/retry_ratio_budget.hpp"
#include "policy/trailing_counts.hpp"

using namespace stampede;

TEST_CASE("retry quota: 5 a retry, 10 after a timeout, the last cost back on success") {
  RetryQuota q(RetryQuotaConfig{});
  CHECK(q.available() == 500);
  CHECK(q.acquire(false));
  CHECK(q.available() == 495);
  CHECK(q.acquire(true));
  CHECK(q.available() == 485);
  q.on_success();  // the item's last retry took 10: 10 back
  CHECK(q.available() == 495);
  q.on_success();  // a success without a retry: the refund of 1
  CHECK(q.available() == 496);
  CHECK(q.acquire(false));
  q.on_give_up();  // a dead letter keeps what it spent
  q.on_success();
  CHECK(q.available() == 492);
  for (int i = 0; i < 20; ++i) q.on_success();
  CHECK(q.available() == 500);  // never above the capacity
}

TEST_CASE("retry quota: an empty bucket refuses, and takes nothing") {
  RetryQuota q(RetryQuotaConfig{12, 5, 10, 1});
  CHECK(q.acquire(false));       // 7
  CHECK_FALSE(q.acquire(true));  // 10 > 7
  CHECK(q.available() == 7);
  CHECK(q.acquire(false));  // 2
  CHECK_FALSE(q.acquire(false));
  CHECK(q.available() == 2);
}

TEST_CASE("the policy dead-letters with retry_quota when the quota runs dry") {
  FleetConfig f;
  f.strategy = StrategyKind::kNone;
  f.retry_quota = RetryQuotaConfig{11, 5, 10, 1};
  const RetryPolicy policy = RetryPolicy::from(f);
  ClientGuards g = RetryPolicy::make_guards(f);
  Rng rng(1);
  ItemState item;
  CHECK(policy.on_outcome(0, Outcome::kRateLimited, std::nullopt, item, g, rng).kind ==
        Step::Kind::kRetryAt);
  CHECK(policy.on_outcome(0, Outcome::kRateLimited, std::nullopt, item, g, rng).kind ==
        Step::Kind::kRetryAt);
  const Step last = policy.on_outcome(0, Outcome::kRateLimited, std::nullopt, item, g, rng);
  CHECK(last.kind == Step::Kind::kDeadLetter);
  CHECK(last.reason == DeadLetterReason::kQuota);
  CHECK(to_string(DeadLetterReason::kQuota) == "retry_quota");
}

TEST_CASE("trailing counts forget what falls out of the window") {
  TrailingCounts c(16 * kNsPerSec);  // 1 s slots
  c.add(0, 0);
  c.add(500 * kNsPerMs, 0);
  c.add(3 * kNsPerSec, 1);
  CHECK(c.total(3 * kNsPerSec, 0) == 2);
  CHECK(c.total(15 * kNsPerSec, 0) == 2);
  CHECK(c.total(16 * kNsPerSec, 0) == 0);  // slot 0 left the window
  CHECK(c.total(16 * kNsPerSec, 1) == 1);
  CHECK(c.total(100 * kNsPerSec, 1) == 0);
}

TEST_CASE("adaptive throttling: p = max(0, (requests - K * accepts) / (requests + 1))") {
  AdaptiveThrottle t(AdaptiveThrottleConfig{2, 120 * kNsPerSec});
  CHECK(t.reject_probability(0) == 0);
  for (int i = 0; i < 10; ++i) t.record(0, true);
  CHECK(t.reject_probability(0) == 0);  // 10 - 20 < 0
  for (int i = 0; i < 20; ++i) t.record(0, false);
  // 30 requests, 10 accepts: (30 - 20) / 31
  CHECK(t.reject_probability(0) == doctest::Approx(10.0 / 31));
  Rng rng(3);
  int rejected = 0;
  for (int i = 0; i < 10000; ++i) rejected += t.rejects(0, rng) ? 1 : 0;
  CHECK(rejected > 2900);
  CHECK(rejected < 3550);
  // Two minutes later the history is gone and nothing is rejected.
  CHECK(t.reject_probability(121 * kNsPerSec) == 0);
}

TEST_CASE("a healthy throttle never draws from the client's stream") {
  AdaptiveThrottle t(AdaptiveThrottleConfig{});
  t.record(0, true);
  Rng rng(9);
  Rng same(9);
  CHECK_FALSE(t.rejects(0, rng));
  CHECK(rng.next() == same.next());
}

TEST_CASE("retry ratio: retries only while below RATIO of the window's requests") {
  RetryRatioBudget b(RetryRatioConfig{0.1, 120 * kNsPerSec});
  CHECK_FALSE(b.allows_retry(0));  // no request yet: 0 < 0 fails
  b.record(0, false);
  CHECK(b.allows_retry(0));  // 0 < 0.1
  b.record(0, true);         // 1 retry of 2 requests
  CHECK_FALSE(b.allows_retry(0));
  for (int i = 0; i < 9; ++i) b.record(0, false);  // 1 of 11
  CHECK(b.allows_retry(0));
  CHECK_FALSE(b.allows_retry(121 * kNsPerSec));  // all forgotten
}

TEST_CASE("adaptive rate limiter: off until a throttle, then CUBIC on the measured rate") {
  AdaptiveRateLimiter l;
  CHECK(l.acquire(5 * kNsPerSec) == 5 * kNsPerSec);
  // Ten successes at t = 0.1 s .. 1.0 s: the meter closes its first half-second bucket at
  // t = 0.5 s with 5 answers (rate 10/s, smoothed 0.8 -> 8/s), then at t = 1.0 s with 5 more
  // (8 * 0.2 + 10 * 0.8 = 9.6/s).
  for (int i = 1; i <= 10; ++i) l.on_response(i * 100 * kNsPerMs, false);
  CHECK_FALSE(l.enabled());
  CHECK(l.measured_rate() == doctest::Approx(9.6));
  // A throttle at 1.2 s: while off, the rate used is the measured one; the new fill rate is
  // beta times it (under the bound of twice the measured rate).
  l.on_response(1200 * kNsPerMs, true);
  CHECK(l.enabled());
  const double rate = 0.7 * 9.6;
  CHECK(l.fill_rate() == doctest::Approx(rate));
  // The bucket filled at the floor of 0.5/s from t = 0.1 s to 1.2 s (0.55 tokens), then at
  // the new rate to t = 2 s: 0.55 + 0.8 * 6.72 = 5.926 tokens. Five sends at t = 2 s go at
  // once; the sixth waits for the missing 0.074 of a token, the seventh a whole token more.
  const std::int64_t at = 2 * kNsPerSec;
  for (int i = 0; i < 5; ++i) CHECK(l.acquire(at) == at);
  const double tokens = 0.55 + 0.8 * rate - 5;
  const std::int64_t sixth = l.acquire(at);
  CHECK(static_cast<double>(sixth - at) ==
        doctest::Approx((1 - tokens) / rate * 1e9).epsilon(1e-6));
  const std::int64_t seventh = l.acquire(at);
  CHECK(static_cast<double>(seventh - sixth) == doctest::Approx(1e9 / rate).epsilon(1e-6));
  // Successes grow the rate along the cubic: w_max 9.6, K = cbrt(9.6 * 0.3 / 0.4).
  const double k = std::cbrt(9.6 * 0.3 / 0.4);
  l.on_response(1200 * kNsPerMs + static_cast<std::int64_t>(k * 1e9), false);
  CHECK(l.fill_rate() == doctest::Approx(std::min(9.6, 2 * l.measured_rate())).epsilon(1e-3));
}

TEST_CASE("rate limiter floors: never below 0.5 per second") {
  AdaptiveRateLimiter l;
  l.on_response(100 * kNsPerMs, true);  // no rate measured yet: the rate drops to the floor
  CHECK(l.enabled());
  CHECK(l.fill_rate() == 0.5);
}

TEST_CASE("send_at applies the breaker, then the limiter") {
  FleetConfig f;
  f.adaptive_rate = true;
  ClientGuards g = RetryPolicy::make_guards(f);
  REQUIRE(g.rate_limiter);
  CHECK(g.any());
  CHECK(RetryPolicy::send_at(3 * kNsPerSec, g) == 3 * kNsPerSec);  // still off
  FleetConfig plain;
  CHECK_FALSE(RetryPolicy::make_guards(plain).any());
}
