#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "policy/occ_cycle.hpp"

namespace stampede {

// occ mode on the live engine: the cycle (whose `writing` makes the next request the
// conditional PUT with If-Match, else the GET that reads the row) and each answer's ETag.
struct LiveOcc {
  LiveOcc() { etag.reserve(32); }

  OccCycle cycle;
  std::string etag;  // the answer's ETag header, as sent (the transport keeps it)
};

// What the answer to the request in flight leads to (occ_on_answer, with the ETag read).
OccStep occ_after_answer(const RetryPolicy& policy, LiveOcc& occ, std::int64_t now_ns,
                         Outcome outcome, int status, std::optional<std::int64_t> retry_after_ns,
                         ItemState& item, ClientGuards& guards, Rng& rng);

}  // namespace stampede
