#include "retry_policy.hpp"

namespace stampede {

std::string_view to_string(DeadLetterReason r) {
  switch (r) {
    case DeadLetterReason::kNone:
      return "none";
    case DeadLetterReason::kNotRetryable:
      return "not_retryable";
    case DeadLetterReason::kAttempts:
      return "attempts_exhausted";
    case DeadLetterReason::kDeadline:
      return "deadline";
    case DeadLetterReason::kBudget:
      return "retry_budget";
  }
  return "?";
}

RetryPolicy RetryPolicy::from(const FleetConfig& f) {
  return RetryPolicy(Backoff(f.strategy, f.base_ns, f.cap_ns),
                     RetryPolicyConfig{f.max_attempts, f.deadline_ns, f.retry_after});
}

ClientGuards RetryPolicy::make_guards(const FleetConfig& f) {
  ClientGuards g;
  if (f.retry_budget) g.budget.emplace(*f.retry_budget);
  if (f.breaker) g.breaker.emplace(*f.breaker);
  return g;
}

std::int64_t RetryPolicy::delay(std::int64_t attempt, std::optional<std::int64_t> retry_after_ns,
                                const ItemState& item, Rng& rng) const {
  // The strategy draws on every retry, hint or not, so a client's stream advances the same
  // way whatever the provider says.
  const std::int64_t drawn = backoff_.next({attempt, item.previous_ns}, rng);
  if (!retry_after_ns || config_.retry_after == RetryAfterMode::kIgnore) return drawn;
  if (config_.retry_after == RetryAfterMode::kExact) return *retry_after_ns;
  // Every client a fixed window rejects gets the same hint; spread them over the strategy's
  // window after it instead of sending them back together.
  return *retry_after_ns + rng.uniform(0, backoff_.ceiling(attempt) + 1);
}

Step RetryPolicy::on_outcome(std::int64_t now_ns, Outcome outcome,
                             std::optional<std::int64_t> retry_after_ns, ItemState& item,
                             ClientGuards& guards, Rng& rng) const {
  const bool failed = outcome != Outcome::kOk;
  if (guards.budget) failed ? guards.budget->on_failure() : guards.budget->on_success();
  if (guards.breaker) failed ? guards.breaker->on_failure(now_ns) : guards.breaker->on_success();
  if (!failed) return {Step::Kind::kDone, now_ns, DeadLetterReason::kNone};
  if (!is_retryable(outcome))
    return {Step::Kind::kDeadLetter, now_ns, DeadLetterReason::kNotRetryable};
  if (config_.max_attempts > 0 && item.retries >= config_.max_attempts) {
    return {Step::Kind::kDeadLetter, now_ns, DeadLetterReason::kAttempts};
  }
  if (guards.budget && !guards.budget->allows_retry()) {
    return {Step::Kind::kDeadLetter, now_ns, DeadLetterReason::kBudget};
  }
  const std::int64_t attempt = item.retries + 1;
  const std::int64_t wait = delay(attempt, retry_after_ns, item, rng);
  std::int64_t at = now_ns + wait;
  if (guards.breaker) at = guards.breaker->permit_at(at);
  // Checked before the sleep: never start a wait whose send would fall past the deadline.
  if (config_.deadline_ns && at - item.start_ns > *config_.deadline_ns) {
    return {Step::Kind::kDeadLetter, now_ns, DeadLetterReason::kDeadline};
  }
  item.retries = attempt;
  item.previous_ns = wait;
  return {Step::Kind::kRetryAt, at, DeadLetterReason::kNone};
}

}  // namespace stampede
