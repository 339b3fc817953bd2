#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parsed.hpp"

namespace stampede {

inline constexpr std::int64_t kNsPerMs = 1'000'000;
inline constexpr std::int64_t kNsPerSec = 1'000'000'000;

// "250ms", "1.5s", "2m", "1h", "100us", "10ns". A unit is required: a bare number is
// ambiguous and gets an error that says so.
Parsed<std::int64_t> parse_duration_ns(std::string_view text);

// The shortest exact-enough spelling: "1s", "1.5s", "250ms", "2m".
std::string format_duration(std::int64_t ns);
// For a person, not to parse back: the largest unit, to a thousandth, "16.768ms", "30.016s".
std::string format_duration_rounded(std::int64_t ns);

inline double ns_to_s(std::int64_t ns) {
  return static_cast<double>(ns) / kNsPerSec;
}

}  // namespace stampede
