#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace stampede {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil):
// HTTP dates and RFC 3339 times both need it, without the local time zone mktime would use.
inline std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// A whole second since the epoch as UTC text in a strftime format (format_utc in results.hpp
// takes nanoseconds and writes RFC 3339 to the millisecond): the HTTP Date header's
// IMF-fixdate, or RFC 3339 as Anthropic sends its reset times.
inline std::string strftime_utc(std::int64_t epoch_s, const char* format) {
  const auto t = static_cast<std::time_t>(epoch_s);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[64];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

}  // namespace stampede
