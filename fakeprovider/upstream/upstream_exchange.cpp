#include "upstream/upstream_exchange.hpp"

namespace stampede {

std::string_view to_string(UpstreamFailure f) {
  switch (f) {
    case UpstreamFailure::kNone:
      return "none";
    case UpstreamFailure::kRefused:
      return "refused";
    case UpstreamFailure::kTimedOut:
      return "timed_out";
    case UpstreamFailure::kBroken:
      return "broken";
    case UpstreamFailure::kStopped:
      return "stopped";
    case UpstreamFailure::kPoolBusy:
      return "pool_busy";
  }
  return "broken";
}

}  // namespace stampede
