#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/retry_policy.hpp"

using namespace stampede;

namespace {

RetryPolicy policy(StrategyKind kind, std::int64_t max_attempts,
                   std::optional<std::int64_t> deadline_ns = std::nullopt,
                   RetryAfterMode mode = RetryAfterMode::kIgnore, std::int64_t base_ns = kNsPerSec,
                   std::int64_t cap_ns = 60 * kNsPerSec) {
  return RetryPolicy(Backoff(kind, base_ns, cap_ns), {max_attempts, deadline_ns, mode});
}

}  // namespace

TEST_CASE("statuses classify into outcomes") {
  struct Row {
    int status;
    Outcome outcome;
  };
  for (const Row& r : {Row{200, Outcome::kOk}, Row{204, Outcome::kOk}, Row{299, Outcome::kOk},
                       Row{400, Outcome::kClientError}, Row{401, Outcome::kClientError},
                       Row{404, Outcome::kClientError}, Row{409, Outcome::kClientError},
                       Row{413, Outcome::kClientError}, Row{429, Outcome::kRateLimited},
                       Row{500, Outcome::kServerError}, Row{502, Outcome::kServerError},
                       Row{504, Outcome::kServerError}, Row{503, Outcome::kUnavailable},
                       Row{529, Outcome::kOverloaded}, Row{302, Outcome::kClientError},
                       // No final answer has these: libcurl hands a 999 over as it came.
                       Row{999, Outcome::kBadResponse}, Row{600, Outcome::kBadResponse},
                       Row{199, Outcome::kBadResponse}, Row{100, Outcome::kBadResponse},
                       Row{0, Outcome::kBadResponse}}) {
    CAPTURE(r.status);
    CHECK(classify_status(r.status) == r.outcome);
  }
  for (std::size_t i = 0; i < kOutcomeCount; ++i) {
    const auto o = static_cast<Outcome>(i);
    CHECK(parse_outcome_name(outcome_name(o)) == o);
  }
  CHECK_FALSE(parse_outcome_name("418"));
}

TEST_CASE("which outcomes are retried") {
  struct Row {
    Outcome outcome;
    Step::Kind kind;
    DeadLetterReason reason;
  };
  for (const Row& r : {
           Row{Outcome::kOk, Step::Kind::kDone, DeadLetterReason::kNone},
           Row{Outcome::kRateLimited, Step::Kind::kRetryAt, DeadLetterReason::kNone},
           Row{Outcome::kUnavailable, Step::Kind::kRetryAt, DeadLetterReason::kNone},
           Row{Outcome::kOverloaded, Step::Kind::kRetryAt, DeadLetterReason::kNone},
           Row{Outcome::kServerError, Step::Kind::kRetryAt, DeadLetterReason::kNone},
           Row{Outcome::kConnectError, Step::Kind::kRetryAt, DeadLetterReason::kNone},
           Row{Outcome::kTimeout, Step::Kind::kRetryAt, DeadLetterReason::kNone},
           Row{Outcome::kClientError, Step::Kind::kDeadLetter, DeadLetterReason::kNotRetryable},
       }) {
    CAPTURE(outcome_name(r.outcome));
    const auto p = policy(StrategyKind::kExponential, 5);
    ItemState item;
    ClientGuards guards;
    Rng rng(1);
    const auto step = p.on_outcome(10 * kNsPerSec, r.outcome, std::nullopt, item, guards, rng);
    CHECK(step.kind == r.kind);
    CHECK(step.reason == r.reason);
    if (r.kind == Step::Kind::kRetryAt) {
      CHECK(step.at_ns == 11 * kNsPerSec);
      CHECK(item.retries == 1);
      CHECK(item.previous_ns == kNsPerSec);
    } else {
      CHECK(step.at_ns == 10 * kNsPerSec);
      CHECK(item.retries == 0);
    }
  }
  CHECK(to_string(DeadLetterReason::kNotRetryable) == "not_retryable");
  CHECK(to_string(DeadLetterReason::kAttempts) == "attempts_exhausted");
}

TEST_CASE("x-should-retry overrides the status both ways, and the attempt bound still holds") {
  struct Row {
    Outcome outcome;
    std::optional<bool> should_retry;
    Step::Kind kind;
  };
  for (const Row& r : {
           Row{Outcome::kClientError, true, Step::Kind::kRetryAt},
           Row{Outcome::kClientError, std::nullopt, Step::Kind::kDeadLetter},
           Row{Outcome::kRateLimited, false, Step::Kind::kDeadLetter},
           Row{Outcome::kRateLimited, std::nullopt, Step::Kind::kRetryAt},
           Row{Outcome::kRateLimited, true, Step::Kind::kRetryAt},
           Row{Outcome::kOk, false, Step::Kind::kDone},
       }) {
    CAPTURE(outcome_name(r.outcome));
    CAPTURE(r.should_retry.has_value());
    const auto p = policy(StrategyKind::kExponential, 1);
    ItemState item;
    ClientGuards guards;
    Rng rng(1);
    auto step =
        p.on_outcome(10 * kNsPerSec, r.outcome, std::nullopt, item, guards, rng, r.should_retry);
    CHECK(step.kind == r.kind);
    if (r.kind == Step::Kind::kDeadLetter) CHECK(step.reason == DeadLetterReason::kNotRetryable);
    if (r.kind != Step::Kind::kRetryAt) continue;
    // One retry allowed: the second failure is given up for the bound, hint or not.
    step = p.on_outcome(11 * kNsPerSec, r.outcome, std::nullopt, item, guards, rng, true);
    CHECK(step.kind == Step::Kind::kDeadLetter);
    CHECK(step.reason == DeadLetterReason::kAttempts);
  }
}

TEST_CASE("dead-letter reasons have stable names") {
  CHECK(to_string(DeadLetterReason::kDeadline) == "deadline");
  CHECK(to_string(DeadLetterReason::kBudget) == "retry_budget");
}

TEST_CASE("max_attempts N means exactly N retries, then attempts_exhausted") {
  for (const auto kind :
       {StrategyKind::kNone, StrategyKind::kExponential, StrategyKind::kFullJitter}) {
    for (std::int64_t n : {1, 2, 3, 5, 10}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(n);
      const auto p = policy(kind, n);
      ItemState item;
      ClientGuards guards;
      Rng rng(2);
      std::int64_t now = 0;
      std::int64_t retries = 0;
      Step step;
      for (int i = 0; i < 100; ++i) {
        step = p.on_outcome(now, Outcome::kRateLimited, std::nullopt, item, guards, rng);
        if (step.kind != Step::Kind::kRetryAt) break;
        REQUIRE(step.at_ns >= now);
        now = step.at_ns;
        ++retries;
      }
      CHECK(retries == n);
      CHECK(step.kind == Step::Kind::kDeadLetter);
      CHECK(step.reason == DeadLetterReason::kAttempts);
      CHECK(item.retries == n);
    }
  }
  // 0 is unbounded.
  const auto p = policy(StrategyKind::kNone, 0);
  ItemState item;
  ClientGuards guards;
  Rng rng(2);
  for (int i = 0; i < 10'000; ++i) {
    REQUIRE(p.on_outcome(0, Outcome::kUnavailable, std::nullopt, item, guards, rng).kind ==
            Step::Kind::kRetryAt);
  }
}

TEST_CASE("the deadline is checked before the sleep, the boundary included") {
  struct Row {
    std::string what;
    std::int64_t start_ns;
    std::int64_t now_ns;
    Step::Kind kind;
  };
  // Fixed 1 s backoff, deadline 10 s from the first send.
  for (const Row& r : {
           Row{"well within", 0, 5 * kNsPerSec, Step::Kind::kRetryAt},
           Row{"the send lands exactly on the deadline", 0, 9 * kNsPerSec, Step::Kind::kRetryAt},
           Row{"the send would land 1 ns past it", 0, 9 * kNsPerSec + 1, Step::Kind::kDeadLetter},
           Row{"already past it", 0, 11 * kNsPerSec, Step::Kind::kDeadLetter},
           Row{"counted from the first send", 100 * kNsPerSec, 109 * kNsPerSec,
               Step::Kind::kRetryAt},
           Row{"counted from the first send, past", 100 * kNsPerSec, 109 * kNsPerSec + 1,
               Step::Kind::kDeadLetter},
       }) {
    CAPTURE(r.what);
    const auto p = policy(StrategyKind::kFixed, 0, 10 * kNsPerSec);
    ItemState item{r.start_ns, 0, 0};
    ClientGuards guards;
    Rng rng(1);
    const auto step =
        p.on_outcome(r.now_ns, Outcome::kUnavailable, std::nullopt, item, guards, rng);
    CHECK(step.kind == r.kind);
    if (r.kind == Step::Kind::kRetryAt) {
      CHECK(step.at_ns == r.now_ns + kNsPerSec);
      CHECK(step.at_ns - r.start_ns <= 10 * kNsPerSec);
    } else {
      CHECK(step.reason == DeadLetterReason::kDeadline);
      CHECK(step.at_ns == r.now_ns);  // given up now, not after sleeping
      CHECK(item.retries == 0);
    }
  }
}

TEST_CASE("no send is ever scheduled past start + deadline") {
  for (const auto kind : {StrategyKind::kExponential, StrategyKind::kFullJitter,
                          StrategyKind::kEqualJitter, StrategyKind::kDecorrelatedJitter}) {
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(seed);
      const std::int64_t deadline = 45 * kNsPerSec;
      const auto p = policy(kind, 0, deadline, RetryAfterMode::kIgnore, kNsPerSec, 8 * kNsPerSec);
      Rng rng(seed);
      const std::int64_t start = static_cast<std::int64_t>(seed) * kNsPerSec;
      ItemState item{start, 0, 0};
      ClientGuards guards;
      std::int64_t now = start;
      Step step;
      for (int i = 0; i < 1000; ++i) {
        step = p.on_outcome(now, Outcome::kOverloaded, std::nullopt, item, guards, rng);
        if (step.kind != Step::Kind::kRetryAt) break;
        REQUIRE(step.at_ns <= start + deadline);
        now = step.at_ns;
      }
      CHECK(step.kind == Step::Kind::kDeadLetter);
      CHECK(step.reason == DeadLetterReason::kDeadline);
    }
  }
}

TEST_CASE("Retry-After: ignore draws, exact takes the hint, jittered adds full jitter") {
  const std::int64_t hint = 7 * kNsPerSec;
  for (std::int32_t attempt = 1; attempt <= 6; ++attempt) {
    CAPTURE(attempt);
    const std::int64_t ceiling = std::min<std::int64_t>(60, 1LL << (attempt - 1)) * kNsPerSec;
    for (int draw = 0; draw < 500; ++draw) {
      Rng rng(static_cast<std::uint64_t>(draw) + 1);
      ClientGuards guards;
      const std::int64_t now = 100 * kNsPerSec;
      ItemState item{0, attempt - 1, 0};
      const auto ignore =
          policy(StrategyKind::kExponential, 0, std::nullopt, RetryAfterMode::kIgnore)
              .on_outcome(now, Outcome::kRateLimited, hint, item, guards, rng);
      CHECK(ignore.at_ns == now + ceiling);
      item = {0, attempt - 1, 0};
      const auto exact = policy(StrategyKind::kExponential, 0, std::nullopt, RetryAfterMode::kExact)
                             .on_outcome(now, Outcome::kRateLimited, hint, item, guards, rng);
      CHECK(exact.at_ns == now + hint);
      CHECK(item.previous_ns == hint);
      item = {0, attempt - 1, 0};
      const auto jittered =
          policy(StrategyKind::kExponential, 0, std::nullopt, RetryAfterMode::kJittered)
              .on_outcome(now, Outcome::kRateLimited, hint, item, guards, rng);
      REQUIRE(jittered.at_ns >= now + hint);
      REQUIRE(jittered.at_ns <= now + hint + ceiling);
    }
  }
  // Without a hint every mode falls back to the strategy.
  for (const auto mode :
       {RetryAfterMode::kIgnore, RetryAfterMode::kExact, RetryAfterMode::kJittered}) {
    Rng rng(1);
    ItemState item;
    ClientGuards guards;
    const auto step = policy(StrategyKind::kExponential, 0, std::nullopt, mode)
                          .on_outcome(0, Outcome::kRateLimited, std::nullopt, item, guards, rng);
    CHECK(step.at_ns == kNsPerSec);
  }
}

TEST_CASE("jittered Retry-After spreads a herd over the whole window") {
  // Every client rejected by a fixed window gets the same hint; jittered spreads them.
  const auto p = policy(StrategyKind::kFullJitter, 0, std::nullopt, RetryAfterMode::kJittered,
                        kNsPerSec, 60 * kNsPerSec);
  std::vector<int> per_100ms(11, 0);
  for (std::uint64_t c = 0; c < 10'000; ++c) {
    Rng rng = make_stream(1, c);
    ItemState item;
    ClientGuards guards;
    const auto step = p.on_outcome(0, Outcome::kRateLimited, kNsPerSec, item, guards, rng);
    ++per_100ms[static_cast<std::size_t>((step.at_ns - kNsPerSec) / (100 * kNsPerMs))];
  }
  for (std::size_t b = 0; b < 10; ++b) {
    CAPTURE(b);
    CHECK(per_100ms[b] > 800);
    CHECK(per_100ms[b] < 1200);
  }
}

TEST_CASE("the retry budget: tokens, the more-than-half rule, refunds") {
  RetryBudget budget({10, 0.5});
  CHECK(budget.tokens() == 10);
  struct Row {
    bool success;
    double tokens;
    bool allows;
  };
  for (const Row& r : {Row{false, 9, true}, Row{false, 8, true}, Row{false, 7, true},
                       Row{false, 6, true}, Row{false, 5, false},  // exactly half: throttled
                       Row{true, 5.5, true}, Row{false, 4.5, false}, Row{false, 3.5, false},
                       Row{false, 2.5, false}, Row{false, 1.5, false}, Row{false, 0.5, false},
                       Row{false, 0, false},  // never below zero
                       Row{true, 0.5, false}}) {
    r.success ? budget.on_success() : budget.on_failure();
    CHECK(budget.tokens() == r.tokens);
    CHECK(budget.allows_retry() == r.allows);
  }
  for (int i = 0; i < 100; ++i) budget.on_success();
  CHECK(budget.tokens() == 10);  // never above the maximum
}

TEST_CASE("the policy dead-letters on an exhausted budget and refunds on success") {
  const auto p = policy(StrategyKind::kNone, 0);
  ClientGuards guards;
  guards.budget.emplace(RetryBudgetConfig{4, 1});
  Rng rng(1);
  std::vector<std::string> seen;
  auto answer = [&](Outcome o) {
    ItemState item;
    const auto step = p.on_outcome(0, o, std::nullopt, item, guards, rng);
    seen.push_back(step.kind == Step::Kind::kRetryAt ? "retry"
                   : step.kind == Step::Kind::kDone  ? "done"
                                                     : std::string(to_string(step.reason)));
  };
  answer(Outcome::kUnavailable);  // 3 tokens left: retry
  answer(Outcome::kUnavailable);  // 2: not more than half
  answer(Outcome::kOk);           // 3
  answer(Outcome::kUnavailable);  // 2 again
  answer(Outcome::kOk);           // 3
  answer(Outcome::kOk);           // 4
  answer(Outcome::kUnavailable);  // 3
  answer(Outcome::kClientError);  // a 4xx is never retried, whatever the budget
  CHECK(seen == std::vector<std::string>{"retry", "retry_budget", "done", "retry_budget", "done",
                                         "done", "retry", "not_retryable"});
}

TEST_CASE("the circuit breaker: closed, open for the cool-down, one probe") {
  CircuitBreaker b({3, 10 * kNsPerSec});
  using S = CircuitBreaker::State;
  CHECK(b.state() == S::kClosed);
  b.on_failure(1 * kNsPerSec);
  b.on_failure(2 * kNsPerSec);
  CHECK(b.state() == S::kClosed);
  CHECK(b.permit_at(2 * kNsPerSec) == 2 * kNsPerSec);
  b.on_success();  // a success resets the count
  b.on_failure(3 * kNsPerSec);
  b.on_failure(4 * kNsPerSec);
  CHECK(b.state() == S::kClosed);
  b.on_failure(5 * kNsPerSec);  // the third in a row
  CHECK(b.state() == S::kOpen);
  CHECK(b.permit_at(6 * kNsPerSec) == 15 * kNsPerSec);  // the end of the cool-down
  CHECK(b.state() == S::kHalfOpen);
  b.on_success();  // the probe succeeds
  CHECK(b.state() == S::kClosed);
  CHECK(b.permit_at(16 * kNsPerSec) == 16 * kNsPerSec);

  for (int i = 0; i < 3; ++i) b.on_failure(20 * kNsPerSec);
  CHECK(b.state() == S::kOpen);
  CHECK(b.permit_at(40 * kNsPerSec) == 40 * kNsPerSec);  // cooled down already: go now
  CHECK(b.state() == S::kHalfOpen);
  b.on_failure(41 * kNsPerSec);  // the probe fails: open again, one failure is enough
  CHECK(b.state() == S::kOpen);
  CHECK(b.permit_at(42 * kNsPerSec) == 51 * kNsPerSec);
}

TEST_CASE("the policy holds a retry until the breaker lets it through") {
  const auto p = policy(StrategyKind::kFixed, 0, 30 * kNsPerSec);
  ClientGuards guards;
  guards.breaker.emplace(BreakerConfig{2, 20 * kNsPerSec});
  Rng rng(1);
  ItemState item{0, 0, 0};
  auto step = p.on_outcome(0, Outcome::kUnavailable, std::nullopt, item, guards, rng);
  CHECK(step.kind == Step::Kind::kRetryAt);
  CHECK(step.at_ns == kNsPerSec);
  step = p.on_outcome(kNsPerSec, Outcome::kUnavailable, std::nullopt, item, guards, rng);
  CHECK(step.kind == Step::Kind::kRetryAt);
  CHECK(step.at_ns == 21 * kNsPerSec);  // open at 1 s for 20 s
  // The probe fails: open until 41 s, past the 30 s deadline, so the item is given up now.
  step = p.on_outcome(21 * kNsPerSec, Outcome::kUnavailable, std::nullopt, item, guards, rng);
  CHECK(step.kind == Step::Kind::kDeadLetter);
  CHECK(step.reason == DeadLetterReason::kDeadline);
  CHECK(step.at_ns == 21 * kNsPerSec);
}

TEST_CASE("the policy and guards are built from the fleet config") {
  FleetConfig f;
  f.strategy = StrategyKind::kExponential;
  f.base_ns = 2 * kNsPerSec;
  f.cap_ns = 5 * kNsPerSec;
  f.max_attempts = 2;
  const auto p = RetryPolicy::from(f);
  CHECK(p.backoff().kind() == StrategyKind::kExponential);
  CHECK(p.backoff().ceiling(3) == 5 * kNsPerSec);
  CHECK_FALSE(RetryPolicy::make_guards(f).budget);
  CHECK_FALSE(RetryPolicy::make_guards(f).breaker);
  f.retry_budget = RetryBudgetConfig{10, 0.1};
  f.breaker = BreakerConfig{5, kNsPerSec};
  const auto g = RetryPolicy::make_guards(f);
  REQUIRE(g.budget);
  CHECK(g.budget->tokens() == 10);
  REQUIRE(g.breaker);
  CHECK(g.breaker->state() == CircuitBreaker::State::kClosed);
}
