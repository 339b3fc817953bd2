#include "policy/item_life.hpp"

#include <algorithm>
#include <string>

namespace stampede {

std::int64_t ItemLife::begin(std::int64_t now_ns, const WorkItem& work, ItemState& item,
                             OccCycle* occ, ClientGuards& guards) const {
  item = ItemState{};
  if (occ) *occ = OccCycle{};
  return RetryPolicy::send_at(std::max(now_ns, work.intended_ns), guards);
}

Step ItemLife::on_send_due(std::int64_t at_ns, ItemState& item, OccCycle* occ, ClientGuards& guards,
                           Rng& rng) const {
  // The deadline counts from the first send's schedule, one dropped on the client too.
  if (item.retries == 0 && item.sends == 0) item.start_ns = at_ns;
  if (RetryPolicy::rejects_locally(at_ns, guards, rng))
    return on_outcome(at_ns, Answer::dropped_locally(), item, occ, guards, rng);
  ++item.sends;
  return {Step::Kind::kSendNow, at_ns, DeadLetterReason::kNone};
}

Step ItemLife::on_outcome(std::int64_t now_ns, const Answer& answer, ItemState& item, OccCycle* occ,
                          ClientGuards& guards, Rng& rng) const {
  Outcome outcome = answer.outcome;
  std::optional<bool> should_retry = answer.should_retry;
  if (occ) {
    const bool was_write = occ->writing;
    occ->writing = false;
    if (!was_write && outcome == Outcome::kOk) {
      if (answer.version) {
        occ->writing = true;
        occ->version = *answer.version;
        return {Step::Kind::kSendNow, now_ns, DeadLetterReason::kNone};
      }
      // A read without a version gives a write nothing to name: retrying would not help.
      outcome = Outcome::kClientError;
      should_retry.reset();
    }
    // A 412 is the row moving under the client, the storm this mode is about: the policy asks
    // only whether an outcome is retryable, and a conflict is, like a 429.
    if (was_write && answer.status == 412) {
      outcome = Outcome::kRateLimited;
      should_retry.reset();
    }
  }
  return policy_.on_outcome(now_ns, outcome, answer.retry_after_ns, item, guards, rng,
                            should_retry);
}

void record_item_end(Recording& rec, const Step& step, std::int64_t now_ns,
                     std::int64_t intended_ns, std::int64_t sends) {
  if (step.kind == Step::Kind::kDone) {
    ++rec.delivered;
    rec.item_latency_ns.record(now_ns - intended_ns);
    rec.drain_ns = std::max(rec.drain_ns, now_ns);
  } else {
    ++rec.dead_lettered;
    ++rec.dead_letter_reasons[std::string(to_string(step.reason))];
  }
  rec.sends_per_item.record(sends);
}

}  // namespace stampede
