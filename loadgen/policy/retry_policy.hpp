#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "outcome.hpp"
#include "policy/adaptive_rate_limiter.hpp"
#include "policy/adaptive_throttle.hpp"
#include "policy/backoff.hpp"
#include "policy/circuit_breaker.hpp"
#include "policy/retry_budget.hpp"
#include "policy/retry_quota.hpp"
#include "policy/retry_ratio_budget.hpp"
#include "rng.hpp"
#include "scenario.hpp"

namespace stampede {

// One item's retry life so far.
// 32 bytes: the simulator keeps a million of them, one per client's cache line.
struct ItemState {
  std::int64_t start_ns = 0;     // when its first send was due: the deadline counts from here
  std::int32_t retries = 0;      // retries made so far (dropped on the client or sent)
  std::int32_t sends = 0;        // sends that left the client, an occ read and write each
  std::int64_t previous_ns = 0;  // the last backoff delay
  double backoff_carry = 0;      // the strategy's running value (BackoffDraw::carry)
};
static_assert(sizeof(ItemState) == 32);

// A client's guards, shared by the items it works through one after another.
struct ClientGuards {
  std::optional<RetryBudget> budget;
  std::optional<CircuitBreaker> breaker;
  std::optional<RetryQuota> quota;
  std::optional<AdaptiveRateLimiter> rate_limiter;
  std::optional<AdaptiveThrottle> throttle;
  std::optional<RetryRatioBudget> retry_ratio;

  bool any() const { return budget || breaker || quota || rate_limiter || throttle || retry_ratio; }
};

enum class DeadLetterReason {
  kNone,
  kNotRetryable,
  kAttempts,
  kDeadline,
  kBudget,
  kQuota,
  kRetryRatio
};
std::string_view to_string(DeadLetterReason r);

// What an item does next. kSendNow only from ItemLife: the send due goes now, or in occ mode
// the write follows its read at once.
struct Step {
  enum class Kind { kDone, kRetryAt, kDeadLetter, kSendNow };
  Kind kind = Kind::kDone;
  std::int64_t at_ns = 0;  // kRetryAt: when the next send goes (its permit and token taken)
  DeadLetterReason reason = DeadLetterReason::kNone;
};

struct RetryPolicyConfig {
  std::int64_t max_attempts = 0;  // retries; 0 = unbounded
  std::optional<std::int64_t> deadline_ns;
  RetryAfterMode retry_after = RetryAfterMode::kIgnore;
};

// What to do after each answer. Const and clock-free: the caller passes the time, the
// answer, the item's state, its client's guards and its client's random stream.
class RetryPolicy {
 public:
  RetryPolicy(Backoff backoff, RetryPolicyConfig config) : backoff_(backoff), config_(config) {}

  static RetryPolicy from(const FleetConfig& fleet);
  static ClientGuards make_guards(const FleetConfig& fleet);

  // should_retry: what the answer said in x-should-retry. false (a spend cap): the item is
  // given up as not retryable, whatever its outcome; true: a failure is retried even when its
  // status alone is not retryable (the guards and bounds still apply); none: the status says.
  Step on_outcome(std::int64_t now_ns, Outcome outcome, std::optional<std::int64_t> retry_after_ns,
                  ItemState& item, ClientGuards& guards, Rng& rng,
                  std::optional<bool> should_retry = std::nullopt) const;

  // When a send planned for at_ns may go: after an open breaker's cool-down and the rate
  // limiter's token, both taken. Every send, the first of an item too, is planned through here.
  static std::int64_t send_at(std::int64_t at_ns, ClientGuards& guards);
  // The same time, taking nothing: a retry is checked against the deadline with it first.
  static std::int64_t peek_send_at(std::int64_t at_ns, const ClientGuards& guards);

  // Whether adaptive throttling drops the send due now on the client. The engine then
  // answers it itself, as kRateLimited, without sending it.
  static bool rejects_locally(std::int64_t now_ns, ClientGuards& guards, Rng& rng) {
    return guards.throttle && guards.throttle->rejects(now_ns, rng);
  }

  const Backoff& backoff() const { return backoff_; }

 private:
  std::int64_t delay(std::int64_t attempt, std::optional<std::int64_t> retry_after_ns,
                     ItemState& item, Rng& rng) const;
  static void observe(std::int64_t now_ns, Outcome outcome, const ItemState& item,
                      ClientGuards& guards);
  static std::optional<DeadLetterReason> refusal(std::int64_t now_ns, Outcome outcome,
                                                 ClientGuards& guards);

  Backoff backoff_;
  RetryPolicyConfig config_;
};

}  // namespace stampede
