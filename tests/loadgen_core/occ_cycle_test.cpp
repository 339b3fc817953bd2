#include <doctest/doctest.h>

#include "policy/occ_cycle.hpp"

using namespace stampede;

namespace {

struct Fixture {
  RetryPolicy policy{Backoff(StrategyKind::kExponential, 10'000'000, 2'000'000'000), {}};
  OccCycle cycle;
  ItemState item;
  ClientGuards guards;
  Rng rng{1};

  OccStep answer(std::int64_t now_ns, int status, std::optional<std::uint64_t> version = {}) {
    return occ_on_answer(policy, cycle, now_ns, classify_status(status), status, version,
                         std::nullopt, item, guards, rng);
  }
};

}  // namespace

TEST_CASE("occ cycle: a read with a version leads straight to the write that names it") {
  Fixture f;
  const OccStep s = f.answer(100, 200, 7);
  CHECK(s.write_now);
  CHECK(f.cycle.writing);
  CHECK(f.cycle.version == 7);
  CHECK(f.item.retries == 0);
}

TEST_CASE("occ cycle: a 412 backs off as the policy says, then reads again") {
  Fixture f;
  REQUIRE(f.answer(0, 200, 0).write_now);
  const OccStep first = f.answer(1'000, 412);
  CHECK_FALSE(first.write_now);
  CHECK(first.step.kind == Step::Kind::kRetryAt);
  CHECK(first.step.at_ns == 1'000 + 10'000'000);  // exponential: base, then 2 x base
  CHECK_FALSE(f.cycle.writing);
  REQUIRE(f.answer(20'000'000, 200, 1).write_now);
  const OccStep second = f.answer(21'000'000, 412);
  CHECK(second.step.at_ns == 21'000'000 + 20'000'000);
  CHECK(f.item.retries == 2);
}

TEST_CASE("occ cycle: a successful write is the item done, other answers go to the policy") {
  Fixture f;
  REQUIRE(f.answer(0, 200, 0).write_now);
  CHECK(f.answer(5, 200).step.kind == Step::Kind::kDone);

  Fixture limited;  // a read the provider's allowance turned away is retried as a read
  const OccStep s = limited.answer(0, 429);
  CHECK(s.step.kind == Step::Kind::kRetryAt);
  CHECK_FALSE(limited.cycle.writing);

  Fixture no_version;  // nothing a write could name: not retryable
  const OccStep n = no_version.answer(0, 200, std::nullopt);
  CHECK_FALSE(n.write_now);
  CHECK(n.step.kind == Step::Kind::kDeadLetter);
  CHECK(n.step.reason == DeadLetterReason::kNotRetryable);

  Fixture precondition;  // 428 is a client's mistake, not a conflict
  REQUIRE(precondition.answer(0, 200, 0).write_now);
  CHECK(precondition.answer(1, 428).step.kind == Step::Kind::kDeadLetter);
}

TEST_CASE("occ cycle: max attempts bounds the conflicts an item retries") {
  Fixture f;
  f.policy = RetryPolicy(Backoff(StrategyKind::kNone, 1, 1), RetryPolicyConfig{2, {}, {}});
  for (int conflict = 0; conflict < 2; ++conflict) {
    REQUIRE(f.answer(0, 200, 0).write_now);
    REQUIRE(f.answer(0, 412).step.kind == Step::Kind::kRetryAt);
  }
  REQUIRE(f.answer(0, 200, 0).write_now);
  const OccStep last = f.answer(0, 412);
  CHECK(last.step.kind == Step::Kind::kDeadLetter);
  CHECK(last.step.reason == DeadLetterReason::kAttempts);
}
