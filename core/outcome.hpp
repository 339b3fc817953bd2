#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede {

// What one attempt came to, from either side of the wire.
enum class Outcome : std::uint8_t {
  kOk,            // 2xx
  kRateLimited,   // 429
  kUnavailable,   // 503
  kOverloaded,    // 529
  kServerError,   // any other 5xx
  kClientError,   // any other 4xx: never retried
  kConnectError,  // refused, reset before an answer
  kTimeout,       // no answer within the client's timeout
};

inline constexpr std::size_t kOutcomeCount = 8;

inline constexpr std::array<std::string_view, kOutcomeCount> kOutcomeNames{
    "ok", "429", "503", "529", "5xx", "4xx", "connect_error", "timeout"};

inline std::string_view outcome_name(Outcome o) {
  return kOutcomeNames[static_cast<int>(o)];
}
std::optional<Outcome> parse_outcome_name(std::string_view name);

Outcome classify_status(int status);

// 429, 503, 529, other 5xx, connect errors and timeouts; never another 4xx.
inline bool is_retryable(Outcome o) {
  return o != Outcome::kOk && o != Outcome::kClientError;
}

}  // namespace stampede
