#pragma once

#include <cstdint>
#include <optional>

#include "outcome.hpp"
#include "policy/retry_policy.hpp"

namespace stampede {

// One item's progress in occ mode: read the row's version, write it back conditionally
// (If-Match); on a 412 someone wrote since the read, so back off as the retry policy says and
// read again. Per item, reset when the client takes its next one.
struct OccCycle {
  bool writing = false;       // the request in flight is the conditional write
  std::uint64_t version = 0;  // what the last read returned
};

struct OccStep {
  bool write_now = false;  // send the conditional write at once: the read got a version
  Step step;               // otherwise the retry policy's word; kRetryAt: read again then
};

// After the answer to the request in flight. Pure: both engines pass the answer in and do
// what the step says. outcome: classify_status of the status, or the transport's failure;
// version: the read's ETag, when it carried one a write can name.
OccStep occ_on_answer(const RetryPolicy& policy, OccCycle& cycle, std::int64_t now_ns,
                      Outcome outcome, int status, std::optional<std::uint64_t> version,
                      std::optional<std::int64_t> retry_after_ns, ItemState& item,
                      ClientGuards& guards, Rng& rng);

}  // namespace stampede
