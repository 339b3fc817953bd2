#include "live/live_occ.hpp"

#include "model/versioned_row.hpp"

namespace stampede {

OccStep occ_after_answer(const RetryPolicy& policy, LiveOcc& occ, std::int64_t now_ns,
                         Outcome outcome, int status, std::optional<std::int64_t> retry_after_ns,
                         ItemState& item, ClientGuards& guards, Rng& rng) {
  return occ_on_answer(policy, occ.cycle, now_ns, outcome, status, parse_etag(occ.etag),
                       retry_after_ns, item, guards, rng);
}

}  // namespace stampede
