#pragma once

#include <cstdint>

namespace stampede {

// One item's progress in occ mode: read the row's version, write it back conditionally
// (If-Match); on a 412 someone wrote since the read, so back off as the retry policy says and
// read again. Per item, reset when the client takes its next one; ItemLife drives it.
struct OccCycle {
  bool writing = false;       // the request in flight (or due) is the conditional write
  std::uint64_t version = 0;  // what the last read returned
};

}  // namespace stampede
