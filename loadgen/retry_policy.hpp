#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "backoff.hpp"
#include "circuit_breaker.hpp"
#include "outcome.hpp"
#include "retry_budget.hpp"
#include "rng.hpp"
#include "scenario.hpp"

namespace stampede {

// One item's retry life so far.
struct ItemState {
  std::int64_t start_ns = 0;     // when its first send went: the deadline counts from here
  std::int64_t retries = 0;      // retries made so far
  std::int64_t previous_ns = 0;  // the last backoff delay
};

// A client's guards, shared by the items it works through one after another.
struct ClientGuards {
  std::optional<RetryBudget> budget;
  std::optional<CircuitBreaker> breaker;
};

enum class DeadLetterReason { kNone, kNotRetryable, kAttempts, kDeadline, kBudget };
std::string_view to_string(DeadLetterReason r);

struct Step {
  enum class Kind { kDone, kRetryAt, kDeadLetter };
  Kind kind = Kind::kDone;
  std::int64_t at_ns = 0;  // kRetryAt: when the next send goes
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

  Step on_outcome(std::int64_t now_ns, Outcome outcome, std::optional<std::int64_t> retry_after_ns,
                  ItemState& item, ClientGuards& guards, Rng& rng) const;

  const Backoff& backoff() const { return backoff_; }

 private:
  std::int64_t delay(std::int64_t attempt, std::optional<std::int64_t> retry_after_ns,
                     const ItemState& item, Rng& rng) const;

  Backoff backoff_;
  RetryPolicyConfig config_;
};

}  // namespace stampede
