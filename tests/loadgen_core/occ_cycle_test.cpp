#include <doctest/doctest.h>

#include "policy/item_life.hpp"

using namespace stampede;

namespace {

struct Fixture {
  ItemLife life{RetryPolicy(Backoff(StrategyKind::kExponential, 10'000'000, 2'000'000'000), {})};
  OccCycle cycle;
  ItemState item;
  ClientGuards guards;
  Rng rng{1};

  Step answer(std::int64_t now_ns, int status, std::optional<std::uint64_t> version = {}) {
    const Answer a{classify_status(status), status, std::nullopt, std::nullopt, version};
    return life.on_outcome(now_ns, a, item, &cycle, guards, rng);
  }
};

}  // namespace

TEST_CASE("occ cycle: a read with a version leads straight to the write that names it") {
  Fixture f;
  const Step s = f.answer(100, 200, 7);
  CHECK(s.kind == Step::Kind::kSendNow);
  CHECK(f.cycle.writing);
  CHECK(f.cycle.version == 7);
  CHECK(f.item.retries == 0);
}

TEST_CASE("occ cycle: a 412 backs off as the policy says, then reads again") {
  Fixture f;
  REQUIRE(f.answer(0, 200, 0).kind == Step::Kind::kSendNow);
  const Step first = f.answer(1'000, 412);
  CHECK_FALSE(first.kind == Step::Kind::kSendNow);
  CHECK(first.kind == Step::Kind::kRetryAt);
  CHECK(first.at_ns == 1'000 + 10'000'000);  // exponential: base, then 2 x base
  CHECK_FALSE(f.cycle.writing);
  REQUIRE(f.answer(20'000'000, 200, 1).kind == Step::Kind::kSendNow);
  const Step second = f.answer(21'000'000, 412);
  CHECK(second.at_ns == 21'000'000 + 20'000'000);
  CHECK(f.item.retries == 2);
}

TEST_CASE("occ cycle: a successful write is the item done, other answers go to the policy") {
  Fixture f;
  REQUIRE(f.answer(0, 200, 0).kind == Step::Kind::kSendNow);
  CHECK(f.answer(5, 200).kind == Step::Kind::kDone);

  Fixture limited;  // a read the provider's allowance turned away is retried as a read
  const Step s = limited.answer(0, 429);
  CHECK(s.kind == Step::Kind::kRetryAt);
  CHECK_FALSE(limited.cycle.writing);

  Fixture no_version;  // nothing a write could name: not retryable
  const Step n = no_version.answer(0, 200, std::nullopt);
  CHECK_FALSE(n.kind == Step::Kind::kSendNow);
  CHECK(n.kind == Step::Kind::kDeadLetter);
  CHECK(n.reason == DeadLetterReason::kNotRetryable);

  Fixture precondition;  // 428 is a client's mistake, not a conflict
  REQUIRE(precondition.answer(0, 200, 0).kind == Step::Kind::kSendNow);
  CHECK(precondition.answer(1, 428).kind == Step::Kind::kDeadLetter);
}

TEST_CASE("occ cycle: max attempts bounds the conflicts an item retries") {
  Fixture f;
  f.life = ItemLife(RetryPolicy(Backoff(StrategyKind::kNone, 1, 1), RetryPolicyConfig{2, {}, {}}));
  for (int conflict = 0; conflict < 2; ++conflict) {
    REQUIRE(f.answer(0, 200, 0).kind == Step::Kind::kSendNow);
    REQUIRE(f.answer(0, 412).kind == Step::Kind::kRetryAt);
  }
  REQUIRE(f.answer(0, 200, 0).kind == Step::Kind::kSendNow);
  const Step last = f.answer(0, 412);
  CHECK(last.kind == Step::Kind::kDeadLetter);
  CHECK(last.reason == DeadLetterReason::kAttempts);
}
