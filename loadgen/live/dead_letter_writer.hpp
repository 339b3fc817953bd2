#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outcome.hpp"

namespace stampede {

// An item given up on (attempts or deadline exhausted, a non-retryable answer, the retry
// budget), or one still going when the run stopped ("unfinished"): nothing is lost silently.
struct DeadLetter {
  std::int64_t item = 0;
  std::int64_t client = 0;
  std::int64_t sends = 0;
  std::optional<Outcome> last_outcome;  // none: no answer yet
  int last_status = 0;                  // the HTTP status of the last answer; 0: none
  std::string_view reason;              // to_string(DeadLetterReason) or "unfinished"
  std::int64_t t_ns = 0;                // scenario time it was given up on
};

inline constexpr std::string_view kUnfinishedReason = "unfinished";

// One JSON object per line:
// {"item":7,"client":7,"sends":4,"last_outcome":"429","last_status":429,"reason":"attempts_exhausted","t_s":7.002}
std::string format_dead_letters(const std::vector<DeadLetter>& letters);

}  // namespace stampede
