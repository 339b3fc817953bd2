#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede {

// Not std::isdigit: no locale, and inline, as a trace's ten million lines ask.
inline bool ascii_digit(char c) {
  return c >= '0' && c <= '9';
}

// Times as logs and flags spell them, as nanoseconds since the epoch (or since zero for bare
// seconds). Each returns none when the text is not exactly its form, so a caller can try one
// after another and say what it expected.

// "2026-01-01T00:00:00[.fff](Z|+hh:mm|-hh:mm)": RFC 3339, nginx's $time_iso8601.
std::optional<std::int64_t> rfc3339_ns(std::string_view text);

// "1767225600", "1767225600.250", "0.5": non-negative decimal seconds, nginx's $msec, whole
// and fraction read apart (a double would be off by hundreds of ns).
std::optional<std::int64_t> decimal_seconds_ns(std::string_view text);

// "10/Oct/2000:13:55:36 -0700": the Common Log Format's time, nginx's $time_local.
std::optional<std::int64_t> clf_time_ns(std::string_view text);

}  // namespace stampede
