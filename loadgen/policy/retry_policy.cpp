#include "policy/retry_policy.hpp"

#include <limits>

#include "enum_table.hpp"
#include "saturating.hpp"

namespace stampede {

std::string_view to_string(DeadLetterReason r) {
  constexpr EnumTable<DeadLetterReason, 7> kNames{
      {{DeadLetterReason::kNone, "none"},
       {DeadLetterReason::kNotRetryable, "not_retryable"},
       {DeadLetterReason::kAttempts, "attempts_exhausted"},
       {DeadLetterReason::kDeadline, "deadline"},
       {DeadLetterReason::kBudget, "retry_budget"},
       {DeadLetterReason::kQuota, "retry_quota"},
       {DeadLetterReason::kRetryRatio, "retry_ratio"}}};
  return enum_name(kNames, r);
}

RetryPolicy RetryPolicy::from(const FleetConfig& f) {
  return RetryPolicy(Backoff(f.strategy, f.base_ns, f.cap_ns,
                             BackoffShape{f.multiplier, f.randomization, f.jitter_ns}),
                     RetryPolicyConfig{f.max_attempts, f.deadline_ns, f.retry_after});
}

ClientGuards RetryPolicy::make_guards(const FleetConfig& f) {
  ClientGuards g;
  if (f.retry_budget) g.budget.emplace(*f.retry_budget);
  if (f.breaker) g.breaker.emplace(*f.breaker);
  if (f.retry_quota) g.quota.emplace(*f.retry_quota);
  if (f.adaptive_rate) g.rate_limiter.emplace();
  if (f.adaptive_throttle) g.throttle.emplace(*f.adaptive_throttle);
  if (f.retry_ratio) g.retry_ratio.emplace(*f.retry_ratio);
  return g;
}

std::int64_t RetryPolicy::delay(std::int64_t attempt, std::optional<std::int64_t> retry_after_ns,
                                ItemState& item, Rng& rng) const {
  // The strategy draws on every retry, hint or not, so a client's stream advances the same
  // way whatever the provider says.
  const BackoffDraw draw = backoff_.next({attempt, item.previous_ns, item.backoff_carry}, rng);
  const std::int64_t drawn = draw.delay_ns;
  item.backoff_carry = draw.carry;
  if (!retry_after_ns || config_.retry_after == RetryAfterMode::kIgnore) return drawn;
  if (config_.retry_after == RetryAfterMode::kExact) return *retry_after_ns;
  // Every client a fixed window rejects gets the same hint; spread them over the strategy's
  // window after it instead of sending them back together.
  return saturating_add(*retry_after_ns,
                        rng.uniform(0, saturating_add(backoff_.ceiling(attempt), 1)));
}

std::int64_t RetryPolicy::send_at(std::int64_t at_ns, ClientGuards& guards) {
  if (guards.breaker) at_ns = guards.breaker->permit_at(at_ns);
  if (guards.rate_limiter) at_ns = guards.rate_limiter->acquire(at_ns);
  return at_ns;
}

std::int64_t RetryPolicy::peek_send_at(std::int64_t at_ns, const ClientGuards& guards) {
  if (guards.breaker) at_ns = guards.breaker->peek_permit_at(at_ns);
  if (guards.rate_limiter) at_ns = guards.rate_limiter->peek(at_ns);
  return at_ns;
}

// Every guard hears every answer, whatever is decided after.
void RetryPolicy::observe(std::int64_t now_ns, Outcome outcome, const ItemState& item,
                          ClientGuards& g) {
  const bool failed = outcome != Outcome::kOk;
  if (g.budget) failed ? g.budget->on_failure() : g.budget->on_success();
  if (g.breaker) failed ? g.breaker->on_failure(now_ns) : g.breaker->on_success();
  if (g.rate_limiter) g.rate_limiter->on_response(now_ns, outcome == Outcome::kRateLimited);
  // A 4xx was still accepted by the backend: it is the request's fault, not the load's.
  if (g.throttle) g.throttle->record(now_ns, !failed || outcome == Outcome::kClientError);
  if (g.retry_ratio) g.retry_ratio->record(now_ns, item.retries > 0);
}

// Which guard, if any, refuses the retry of a retryable failure; the quota last, as it takes.
std::optional<DeadLetterReason> RetryPolicy::refusal(std::int64_t now_ns, Outcome outcome,
                                                     ClientGuards& g) {
  if (g.budget && !g.budget->allows_retry()) return DeadLetterReason::kBudget;
  if (g.retry_ratio && !g.retry_ratio->allows_retry(now_ns)) return DeadLetterReason::kRetryRatio;
  if (g.quota && !g.quota->acquire(outcome == Outcome::kTimeout)) return DeadLetterReason::kQuota;
  return std::nullopt;
}

Step RetryPolicy::on_outcome(std::int64_t now_ns, Outcome outcome,
                             std::optional<std::int64_t> retry_after_ns, ItemState& item,
                             ClientGuards& guards, Rng& rng,
                             std::optional<bool> should_retry) const {
  observe(now_ns, outcome, item, guards);
  if (outcome == Outcome::kOk) {
    if (guards.quota) guards.quota->on_success();
    return {Step::Kind::kDone, now_ns, DeadLetterReason::kNone};
  }
  const auto give_up = [&](DeadLetterReason reason) {
    if (guards.quota) guards.quota->on_give_up();
    return Step{Step::Kind::kDeadLetter, now_ns, reason};
  };
  if (!should_retry.value_or(is_retryable(outcome)))
    return give_up(DeadLetterReason::kNotRetryable);
  // An item's retries are counted in 32 bits: two billion of them is the bound of "unbounded".
  const bool counted_out = item.retries == std::numeric_limits<std::int32_t>::max();
  if (counted_out || (config_.max_attempts > 0 && item.retries >= config_.max_attempts)) {
    return give_up(DeadLetterReason::kAttempts);
  }
  if (const auto refused = refusal(now_ns, outcome, guards)) return give_up(*refused);
  const std::int32_t attempt = item.retries + 1;
  const std::int64_t wait = delay(attempt, retry_after_ns, item, rng);
  // A hint of centuries is a retry at the end of time, never one that wraps to "now".
  const std::int64_t planned = saturating_add(now_ns, wait);
  // Checked before the sleep: never start a wait whose send would fall past the deadline. A
  // give-up sends nothing, so it takes neither the breaker's probe nor a rate token.
  const std::int64_t at = peek_send_at(planned, guards);
  if (config_.deadline_ns && saturating_sub(at, item.start_ns) > *config_.deadline_ns) {
    return give_up(DeadLetterReason::kDeadline);
  }
  send_at(planned, guards);
  item.retries = attempt;
  item.previous_ns = wait;
  return {Step::Kind::kRetryAt, at, DeadLetterReason::kNone};
}

}  // namespace stampede
