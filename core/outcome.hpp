#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "enum_table.hpp"

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
  // An answer came but is not HTTP/1.x: a status outside 200-599 or not three digits, no
  // status line (HTTP/0.9), bad framing (a chunk size), a close after part of the head or
  // body, a head over 16 KiB or too many 1xx. Last, so documents from before it keep their
  // label order. The provider never records it: it only answers well-formed HTTP.
  kBadResponse,
};

inline constexpr std::size_t kOutcomeCount = 9;

inline constexpr EnumTable<Outcome, kOutcomeCount> kOutcomes{
    {{Outcome::kOk, "ok"},
     {Outcome::kRateLimited, "429"},
     {Outcome::kUnavailable, "503"},
     {Outcome::kOverloaded, "529"},
     {Outcome::kServerError, "5xx"},
     {Outcome::kClientError, "4xx"},
     {Outcome::kConnectError, "connect_error"},
     {Outcome::kTimeout, "timeout"},
     {Outcome::kBadResponse, "bad_response"}}};
static_assert(is_dense(kOutcomes));
// The labels in the enum's order: documents index their per-outcome columns by it.
inline constexpr auto kOutcomeNames = enum_names(kOutcomes);

inline std::string_view outcome_name(Outcome o) {
  return kOutcomeNames[static_cast<std::size_t>(o)];
}
std::optional<Outcome> parse_outcome_name(std::string_view name);

Outcome classify_status(int status);

// 429, 503, 529, other 5xx, connect errors, timeouts and bad responses; never another 4xx.
// A bad response is retried like a 5xx: what sends one is most often a proxy or a server in
// trouble (a worker killed mid-answer, a load balancer's error page torn off), which passes;
// a server that never speaks HTTP fails every attempt the same and dead-letters them, named.
inline bool is_retryable(Outcome o) {
  return o != Outcome::kOk && o != Outcome::kClientError;
}

}  // namespace stampede
