#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "duration.hpp"
#include "http/retry_after_header.hpp"
#include "policy/backoff.hpp"
#include "policy/circuit_breaker.hpp"
#include "policy/retry_policy.hpp"
#include "saturating.hpp"
#include "sim/sim_engine.hpp"

using namespace stampede;

// Issue 14: a Retry-After of a trillion seconds, thirty digits or the year 9999, followed
// exactly or with jitter, was added to now without saturation: the retry was due at once and
// a histogram was sized from its time (std::bad_alloc).

namespace {

// What a delta saturates to: the most whole seconds int64 nanoseconds hold.
constexpr std::int64_t kLongestHintNs = kMaxNs / kNsPerSec * kNsPerSec;
// 2024-01-01T00:00:00Z, a "now" for the date form.
constexpr std::int64_t kNowEpochNs = 1'704'067'200LL * kNsPerSec;

constexpr const char* kHostileHints[] = {"1000000000000", "123456789012345678901234567890",
                                         "Fri, 31 Dec 9999 23:59:59 GMT"};

RetryPolicy following(RetryAfterMode mode, std::optional<std::int64_t> deadline_ns = {}) {
  return RetryPolicy(Backoff(StrategyKind::kFullJitter, kNsPerSec, 60 * kNsPerSec),
                     {0, deadline_ns, mode});
}

Scenario outage_storm(const char* outage, RetryAfterMode mode) {
  Scenario s;
  s.fleet.clients = 2;
  s.fleet.retry_after = mode;
  s.provider.outages = {*parse_outage(outage)};
  REQUIRE(validate(s).empty());
  return s;
}

}  // namespace

TEST_CASE("a huge Retry-After, delta or date, parses to the longest wait, never a wrapped one") {
  for (const char* value : kHostileHints) {
    CAPTURE(value);
    const auto hint = parse_retry_after(value, kNowEpochNs);
    REQUIRE(hint);
    CHECK(hint->delay_ns == kLongestHintNs);
  }
}

TEST_CASE("a retry after a huge Retry-After is due at the end of time, never at once") {
  for (const char* value : kHostileHints) {
    for (const auto mode : {RetryAfterMode::kExact, RetryAfterMode::kJittered}) {
      CAPTURE(value);
      CAPTURE(static_cast<int>(mode));
      const std::int64_t hint = parse_retry_after(value, kNowEpochNs)->delay_ns;
      for (const std::int64_t now : {std::int64_t{0}, 30 * kNsPerSec, 100'000 * kNsPerSec}) {
        Rng rng(7);
        ItemState item;
        ClientGuards guards;
        const Step step =
            following(mode).on_outcome(now, Outcome::kRateLimited, hint, item, guards, rng);
        REQUIRE(step.kind == Step::Kind::kRetryAt);
        const std::int64_t earliest = saturating_add(now, hint);
        CHECK(earliest >= hint);
        if (mode == RetryAfterMode::kExact) {
          CHECK(step.at_ns == earliest);
        } else {
          CHECK(step.at_ns >= earliest);
        }
        // With a deadline the same wait is past it: given up, not scheduled.
        item = ItemState{};
        const Step bounded = following(mode, 3600 * kNsPerSec)
                                 .on_outcome(now, Outcome::kRateLimited, hint, item, guards, rng);
        CHECK(bounded.kind == Step::Kind::kDeadLetter);
        CHECK(bounded.reason == DeadLetterReason::kDeadline);
      }
    }
  }
}

TEST_CASE("strategies stay in [0, cap] after a previous delay of centuries and huge bounds") {
  const Backoff decorrelated(StrategyKind::kDecorrelatedJitter, kNsPerSec, kMaxNs);
  const Backoff full(StrategyKind::kFullJitter, kNsPerSec, kMaxNs);
  const Backoff additive(StrategyKind::kAdditiveJitter, kNsPerSec, kMaxNs, {2, 0, kMaxNs});
  Rng rng(3);
  for (int draw = 0; draw < 1000; ++draw) {
    const BackoffContext after_hint{5, kLongestHintNs, 0};
    const auto d = decorrelated.next(after_hint, rng).delay_ns;
    CHECK(d >= kNsPerSec);
    const auto f = full.next(BackoffContext{70, 0, 0}, rng).delay_ns;
    CHECK(f >= 0);
    const auto a = additive.next(BackoffContext{70, 0, 0}, rng).delay_ns;
    CHECK(a >= 0);
  }
}

TEST_CASE("a breaker's cool-down of centuries holds the send at the end of time") {
  CircuitBreaker breaker(BreakerConfig{1, kMaxNs});
  breaker.on_failure(100 * kNsPerSec);
  CHECK(breaker.permit_at(200 * kNsPerSec) == kMaxNs);
}

TEST_CASE("simulated: a retry due after the horizon leaves the item unfinished, the bins empty") {
  // An outage to the end of int64 time, its Retry-After followed: without saturation
  // std::bad_alloc; now every item is unfinished and the histograms hold one second.
  for (const auto mode : {RetryAfterMode::kExact, RetryAfterMode::kJittered}) {
    CAPTURE(static_cast<int>(mode));
    const Results r = simulate(outage_storm("0s-2562046h:503", mode));
    CHECK(r.recording.requests == 2);
    CHECK(r.recording.unfinished == 2);
    CHECK(r.recording.client_by_outcome.bins() == 1);
    CHECK(r.recording.backoff.bins() == 1);
    CHECK(r.recording.backoff.overflow(1) == 2);  // they would leave backoff past the last bin
  }
}

TEST_CASE("simulated: a hundred-hour wait is delivered, its sends past the last bin") {
  // Before the bound: 360,000 one-second rows, a 115 MB results file.
  const Results r = simulate(outage_storm("0s-100h:503", RetryAfterMode::kExact));
  CHECK(r.recording.delivered == 2);
  CHECK(r.recording.drain_ns == 100LL * 3600 * kNsPerSec);
  for (const BinnedCounts* h : {&r.recording.provider_by_outcome, &r.recording.client_by_outcome,
                                &r.recording.provider_by_send, &r.recording.backoff}) {
    CHECK(h->bins() == 1);
    CHECK(h->overflow_total() == 2);
  }
}
