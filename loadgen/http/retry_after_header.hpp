#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede {

// A Retry-After header value: delta-seconds ("120") or an HTTP-date (IMF-fixdate, RFC 850 or
// asctime, as RFC 9110 asks recipients to accept). The two forms speak different clocks: a
// delta is a duration on the provider's clock (scenario time, under --time-scale), a date is
// an instant on the wall, so its distance from now is a wall duration.
struct RetryAfterHint {
  std::int64_t delay_ns = 0;  // never negative: a date already past means "now"
  bool from_date = false;
};

// now_epoch_ns: the wall clock (system_clock) now, for the date form. nullopt when the value
// is neither form.
std::optional<RetryAfterHint> parse_retry_after(std::string_view value, std::int64_t now_epoch_ns);

// Seconds since the epoch of an HTTP-date, or nullopt.
std::optional<std::int64_t> parse_http_date(std::string_view text);

}  // namespace stampede
