#include "policy/occ_cycle.hpp"

namespace stampede {

OccStep occ_on_answer(const RetryPolicy& policy, OccCycle& cycle, std::int64_t now_ns,
                      Outcome outcome, int status, std::optional<std::uint64_t> version,
                      std::optional<std::int64_t> retry_after_ns, ItemState& item,
                      ClientGuards& guards, Rng& rng) {
  const bool was_write = cycle.writing;
  cycle.writing = false;
  if (!was_write && outcome == Outcome::kOk) {
    if (version) {
      cycle.writing = true;
      cycle.version = *version;
      return {true, {}};
    }
    // A read without a version gives a write nothing to name: retrying would not help.
    outcome = Outcome::kClientError;
  }
  // A 412 is the row moving under the client, the storm this mode is about: the policy asks
  // only whether an outcome is retryable, and a conflict is, like a 429.
  if (was_write && status == 412) outcome = Outcome::kRateLimited;
  return {false, policy.on_outcome(now_ns, outcome, retry_after_ns, item, guards, rng)};
}

}  // namespace stampede
