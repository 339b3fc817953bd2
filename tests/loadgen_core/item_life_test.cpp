#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/item_life.hpp"

using namespace stampede;

namespace {

// Fixed 1s waits, so every retry's time is plain arithmetic.
ItemLife fixed_life(RetryPolicyConfig config = {}) {
  return ItemLife(RetryPolicy(Backoff(StrategyKind::kFixed, kNsPerSec, kNsPerSec), config));
}

Answer answer_of(int status, std::optional<bool> should_retry = std::nullopt,
                 std::optional<std::uint64_t> version = std::nullopt) {
  return {classify_status(status), status, std::nullopt, should_retry, version};
}

// A throttle that has seen nothing but failures drops nearly every send.
ClientGuards failing_throttle(std::int64_t now_ns) {
  ClientGuards g;
  g.throttle.emplace(AdaptiveThrottleConfig{2, 60 * kNsPerSec});
  for (int i = 0; i < 1000; ++i) g.throttle->record(now_ns, false);
  return g;
}

}  // namespace

TEST_CASE("item life: each answer leads to the step its table row says") {
  struct Row {
    std::string name;
    Answer answer;
    Step::Kind kind;
    DeadLetterReason reason;
  };
  const std::vector<Row> rows{
      {"200 is done", answer_of(200), Step::Kind::kDone, DeadLetterReason::kNone},
      {"429 retries", answer_of(429), Step::Kind::kRetryAt, DeadLetterReason::kNone},
      {"503 retries", answer_of(503), Step::Kind::kRetryAt, DeadLetterReason::kNone},
      {"400 is not retryable", answer_of(400), Step::Kind::kDeadLetter,
       DeadLetterReason::kNotRetryable},
      {"x-should-retry false on a 429", answer_of(429, false), Step::Kind::kDeadLetter,
       DeadLetterReason::kNotRetryable},
      {"x-should-retry true on a 400", answer_of(400, true), Step::Kind::kRetryAt,
       DeadLetterReason::kNone},
      {"a connect error retries",
       {Outcome::kConnectError, 0, {}, {}, {}},
       Step::Kind::kRetryAt,
       DeadLetterReason::kNone},
      {"dropped locally retries as a 429", Answer::dropped_locally(), Step::Kind::kRetryAt,
       DeadLetterReason::kNone},
  };
  const ItemLife life = fixed_life();
  for (const auto& row : rows) {
    CAPTURE(row.name);
    ItemState item;
    ClientGuards guards;
    Rng rng(1);
    REQUIRE(life.begin(0, {7, 0}, item, nullptr, guards) == 0);
    REQUIRE(life.on_send_due(0, item, nullptr, guards, rng).kind == Step::Kind::kSendNow);
    const Step step = life.on_outcome(5 * kNsPerSec, row.answer, item, nullptr, guards, rng);
    CHECK(step.kind == row.kind);
    CHECK(step.reason == row.reason);
    if (row.kind == Step::Kind::kRetryAt) {
      CHECK(step.at_ns == 6 * kNsPerSec);
      CHECK(item.retries == 1);
    }
    CHECK(item.sends == 1);
  }
}

TEST_CASE("item life: occ mode reads, writes at once, and reads again after a conflict") {
  struct Row {
    std::string name;
    bool writing;  // the request answered was the write
    Answer answer;
    Step::Kind kind;
  };
  const std::vector<Row> rows{
      {"a read with a version: write now", false, answer_of(200, {}, 3), Step::Kind::kSendNow},
      {"a read without one: nothing to name", false, answer_of(200), Step::Kind::kDeadLetter},
      {"a read turned away: read again", false, answer_of(429), Step::Kind::kRetryAt},
      {"a write accepted: done", true, answer_of(200), Step::Kind::kDone},
      {"a write in conflict: back off", true, answer_of(412), Step::Kind::kRetryAt},
      // The conflict is the cycle's own: a false x-should-retry does not turn it away.
      {"a conflict whatever x-should-retry", true, answer_of(412, false), Step::Kind::kRetryAt},
      {"a 428 is the client's mistake", true, answer_of(428), Step::Kind::kDeadLetter},
  };
  const ItemLife life = fixed_life();
  for (const auto& row : rows) {
    CAPTURE(row.name);
    ItemState item;
    OccCycle cycle{row.writing, 9};
    ClientGuards guards;
    Rng rng(1);
    const Step step = life.on_outcome(0, row.answer, item, &cycle, guards, rng);
    CHECK(step.kind == row.kind);
    CHECK(cycle.writing == (row.kind == Step::Kind::kSendNow));
    if (row.kind == Step::Kind::kSendNow) CHECK(cycle.version == 3);
  }
}

TEST_CASE("item life: intake resets the item and plans its first send through the guards") {
  const ItemLife life = fixed_life();
  ClientGuards guards;
  guards.breaker.emplace(BreakerConfig{1, 10 * kNsPerSec});
  guards.breaker->on_failure(0);  // open until 10s
  ItemState item{3, 4, 5, 6, 7};
  OccCycle cycle{true, 8};
  CHECK(life.begin(2 * kNsPerSec, {1, 4 * kNsPerSec}, item, &cycle, guards) == 10 * kNsPerSec);
  CHECK(item.retries == 0);
  CHECK(item.sends == 0);
  CHECK_FALSE(cycle.writing);
  ClientGuards none;
  // Never before the item arrived, never before now.
  CHECK(life.begin(2 * kNsPerSec, {1, 4 * kNsPerSec}, item, nullptr, none) == 4 * kNsPerSec);
  CHECK(life.begin(5 * kNsPerSec, {1, 4 * kNsPerSec}, item, nullptr, none) == 5 * kNsPerSec);
}

TEST_CASE("item life: a send the throttle drops never leaves, and is retried as a 429") {
  const ItemLife life = fixed_life();
  ItemState item;
  ClientGuards guards = failing_throttle(0);
  Rng rng(3);
  life.begin(0, {0, 0}, item, nullptr, guards);
  std::int64_t due_ns = kNsPerSec;
  int drops = 0;
  bool sent = false;
  for (int due = 0; due < 20 && !sent; ++due) {
    const Step step = life.on_send_due(due_ns, item, nullptr, guards, rng);
    sent = step.kind == Step::Kind::kSendNow;
    if (sent) break;
    REQUIRE(step.kind == Step::Kind::kRetryAt);
    ++drops;
    due_ns = step.at_ns;
  }
  REQUIRE(drops > 0);
  CHECK(item.retries == drops);
  CHECK(item.sends == (sent ? 1 : 0));  // a dropped send never left
  CHECK(item.start_ns == kNsPerSec);    // the deadline counts from the first, dropped, send
  CHECK(ItemLife::is_retry(item, nullptr));
}

TEST_CASE("item life: only the first send and an occ write follow no backoff") {
  ItemState item;
  CHECK_FALSE(ItemLife::is_retry(item, nullptr));
  item.sends = 1;
  CHECK(ItemLife::is_retry(item, nullptr));
  OccCycle writing{true, 1};
  CHECK_FALSE(ItemLife::is_retry(item, &writing));
  OccCycle reading{false, 1};
  CHECK(ItemLife::is_retry(item, &reading));
}

TEST_CASE("item life: a deadline give-up takes neither the breaker's probe nor a rate token") {
  // The breaker opens on the failure for 10s; the deadline is 5s: the item gives up.
  const ItemLife life = fixed_life({0, 5 * kNsPerSec, RetryAfterMode::kIgnore});
  ClientGuards guards;
  guards.breaker.emplace(BreakerConfig{1, 10 * kNsPerSec});
  guards.rate_limiter.emplace();
  ClientGuards twin = guards;  // hears the same answer, plans nothing
  ItemState item;
  Rng rng(1);
  life.begin(0, {0, 0}, item, nullptr, guards);
  life.begin(0, {0, 0}, item, nullptr, twin);
  REQUIRE(life.on_send_due(0, item, nullptr, guards, rng).kind == Step::Kind::kSendNow);
  const Step step = life.on_outcome(kNsPerSec, answer_of(429), item, nullptr, guards, rng);
  REQUIRE(step.kind == Step::Kind::kDeadLetter);
  CHECK(step.reason == DeadLetterReason::kDeadline);
  twin.breaker->on_failure(kNsPerSec);
  twin.rate_limiter->on_response(kNsPerSec, true);
  CHECK(guards.breaker->state() == CircuitBreaker::State::kOpen);  // no probe let through
  // The next item's first send waits exactly as long as if the give-up had planned nothing.
  CHECK(guards.rate_limiter->acquire(2 * kNsPerSec) == twin.rate_limiter->acquire(2 * kNsPerSec));
  CHECK(guards.breaker->permit_at(2 * kNsPerSec) == twin.breaker->permit_at(2 * kNsPerSec));
}

TEST_CASE("item life: a retry within the deadline does take the probe and the token") {
  const ItemLife life = fixed_life({0, 60 * kNsPerSec, RetryAfterMode::kIgnore});
  ClientGuards guards;
  guards.breaker.emplace(BreakerConfig{1, 10 * kNsPerSec});
  ItemState item;
  Rng rng(1);
  life.begin(0, {0, 0}, item, nullptr, guards);
  REQUIRE(life.on_send_due(0, item, nullptr, guards, rng).kind == Step::Kind::kSendNow);
  const Step step = life.on_outcome(kNsPerSec, answer_of(503), item, nullptr, guards, rng);
  REQUIRE(step.kind == Step::Kind::kRetryAt);
  CHECK(step.at_ns == 11 * kNsPerSec);  // after the cool-down
  CHECK(guards.breaker->state() == CircuitBreaker::State::kHalfOpen);
}

TEST_CASE("item life: an item's end goes into the recording the same way in every engine") {
  Recording rec;
  record_item_end(rec, {Step::Kind::kDone, 0, DeadLetterReason::kNone}, 9 * kNsPerSec,
                  2 * kNsPerSec, 3);
  record_item_end(rec, {Step::Kind::kDeadLetter, 0, DeadLetterReason::kDeadline}, 4 * kNsPerSec, 0,
                  5);
  CHECK(rec.delivered == 1);
  CHECK(rec.dead_lettered == 1);
  CHECK(rec.dead_letter_reasons.at("deadline") == 1);
  CHECK(rec.drain_ns == 9 * kNsPerSec);  // the last delivery, not the last give-up
  CHECK(rec.item_latency_ns.count() == 1);
  CHECK(rec.sends_per_item.count() == 2);
}
