#pragma once

#include <cstdint>
#include <optional>

#include "outcome.hpp"
#include "policy/occ_cycle.hpp"
#include "policy/retry_policy.hpp"
#include "policy/workload.hpp"
#include "results.hpp"
#include "rng.hpp"

namespace stampede {

// What came back for a send: the engine's reading of the provider's answer (or of the
// transport's failure), whatever engine it is.
struct Answer {
  Outcome outcome = Outcome::kOk;
  int status = 0;  // the HTTP status; 0: none (a transport failure, a send dropped locally)
  std::optional<std::int64_t> retry_after_ns;  // the hint, as the client read it
  std::optional<bool> should_retry;            // x-should-retry, when the answer said
  std::optional<std::uint64_t> version;        // occ: the read's ETag, when a write can name it

  // The 429 an adaptive throttle answers for a send it dropped on the client.
  static Answer dropped_locally() { return {Outcome::kRateLimited, 0, {}, {}, {}}; }
};

// One item's retry life, the same in every engine: intake, each send falling due, each
// answer. Const and clock-free, like the RetryPolicy it holds: the engine keeps the state
// (ItemState, and in occ mode the OccCycle) beside its own (the agenda, the row, the
// sockets), passes the time in and does what the Step says.
//   begin: the item is taken; its first send is due at the time returned.
//   on_send_due: kSendNow (send it), or the adaptive throttle dropped it on the client and
//     the step is what that 429 leads to.
//   on_outcome: kDone, kDeadLetter (the item ends), kRetryAt (send again then, the guards'
//     permit and token taken), or in occ mode kSendNow (the read got a version: write now).
// occ: the item's cycle in occ mode, null otherwise.
class ItemLife {
 public:
  explicit ItemLife(RetryPolicy policy) : policy_(policy) {}
  static ItemLife from(const FleetConfig& fleet) { return ItemLife(RetryPolicy::from(fleet)); }

  std::int64_t begin(std::int64_t now_ns, const WorkItem& work, ItemState& item, OccCycle* occ,
                     ClientGuards& guards) const;
  Step on_send_due(std::int64_t at_ns, ItemState& item, OccCycle* occ, ClientGuards& guards,
                   Rng& rng) const;
  Step on_outcome(std::int64_t now_ns, const Answer& answer, ItemState& item, OccCycle* occ,
                  ClientGuards& guards, Rng& rng) const;

  // Whether the send due next comes after a backoff: not the item's first, nor an occ write
  // following its read.
  static bool is_retry(const ItemState& item, const OccCycle* occ) {
    return (item.retries > 0 || item.sends > 0) && !(occ && occ->writing);
  }

 private:
  RetryPolicy policy_;
};

// An item's end (kDone or kDeadLetter) into the recording: delivered with its latency and
// the drain, or dead-lettered with its reason; its sends either way. intended_ns: when it
// arrived. Every engine records through here.
void record_item_end(Recording& rec, const Step& step, std::int64_t now_ns,
                     std::int64_t intended_ns, std::int64_t sends);

}  // namespace stampede
