#include "model/retry_hint.hpp"

#include <algorithm>

#include "duration.hpp"
#include "model/send_attribution.hpp"
#include "rng.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// Apart from the policy's and the hops' streams (0xFF..FF, 0xFF..FE).
constexpr std::uint64_t kHintStream = 0x6869'6E74'0000'0000ULL;  // "hint"

}  // namespace

std::int64_t retry_after_ms_up(std::int64_t retry_after_ns) {
  // Rounded up without the sum wrapping: the end of time is still the end of time.
  const std::int64_t ms = saturating_add(retry_after_ns, kNsPerMs - 1) / kNsPerMs;
  return ms < 1 ? 1 : ms;
}

std::uint64_t hint_identity(std::uint64_t counted_item_key, std::string_view client_id,
                            std::string_view tenant) {
  if (counted_item_key != 0) return counted_item_key;
  // Hashed under the client rule for both: only distinctness matters here.
  return item_key(SendRule::kClientHeader, client_id.empty() ? tenant : client_id);
}

std::int64_t jittered_retry_after_ns(std::int64_t hint_ns, double fraction, std::uint64_t seed,
                                     std::uint64_t identity, std::int64_t send) {
  if (fraction <= 0 || hint_ns <= 0) return hint_ns;
  const std::uint64_t stream =
      kHintStream ^ identity ^ (static_cast<std::uint64_t>(send) * 0x9E37'79B9'7F4A'7C15ULL);
  Rng rng = make_stream(seed, stream);
  // Capped well inside int64, so the cast back is defined for any hint; the sum saturates.
  const double extra = std::min(static_cast<double>(hint_ns) * fraction * rng.unit(),
                                static_cast<double>(kMaxNs / 2));
  return saturating_add(hint_ns, static_cast<std::int64_t>(extra));
}

}  // namespace stampede
