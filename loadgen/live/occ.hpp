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

  // The version the answer's ETag names, when it names one a write can.
  std::optional<std::uint64_t> read_version() const;

  OccCycle cycle;
  std::string etag;  // the answer's ETag header, as sent (the transport keeps it)
};

}  // namespace stampede
