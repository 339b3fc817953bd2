#pragma once

#include <curl/curl.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "occ_cycle.hpp"

namespace stampede {

// occ mode on the live engine, the libcurl side of OccCycle: before each send, the method
// (GET to read the row, PUT to write it) and the If-Match line; from each answer, the ETag.
// The client's request headers point at if_match_line, rewritten in place before each send.
struct LiveOcc {
  LiveOcc();

  OccCycle cycle;
  std::string etag;  // the answer's ETag header, as sent (the header callback keeps it)
  // "If-Match: "N"" for a write; for a read "If-Match:", which libcurl leaves out.
  std::array<char, 40> if_match_line{};
};

// Sets the handle up for the cycle's next request; whether it is the conditional write.
bool prepare_occ_request(CURL* easy, LiveOcc& occ);

// What the answer to the request in flight leads to (occ_on_answer, with the ETag read).
OccStep occ_after_answer(const RetryPolicy& policy, LiveOcc& occ, std::int64_t now_ns,
                         Outcome outcome, int status, std::optional<std::int64_t> retry_after_ns,
                         ItemState& item, ClientGuards& guards, Rng& rng);

}  // namespace stampede
