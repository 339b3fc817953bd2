#include "rate.hpp"

#include <charconv>

#include "duration.hpp"

namespace stampede {

double Rate::per_second() const {
  return static_cast<double>(count) * kNsPerSec / static_cast<double>(window_ns);
}

Parsed<Rate> parse_rate(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return Parsed<Rate>::fail("'" + std::string(text) + "' is not a rate (" + why +
                              "); expected N/s, N/min or N/h with N a positive whole number");
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return fail("no '/'");
  const std::string_view number = text.substr(0, slash);
  const std::string_view unit = text.substr(slash + 1);
  std::int64_t count = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
  if (ec != std::errc{} || end != number.data() + number.size()) return fail("bad count");
  if (count <= 0) return fail("count must be positive");
  std::int64_t window_ns = 0;
  if (unit == "s") {
    window_ns = kNsPerSec;
  } else if (unit == "min") {
    window_ns = 60 * kNsPerSec;
  } else if (unit == "h") {
    window_ns = 3600 * kNsPerSec;
  } else {
    return fail("unknown unit '" + std::string(unit) + "'");
  }
  return Parsed<Rate>::ok(Rate{count, window_ns});
}

std::string format_rate(const Rate& rate) {
  const char* unit = rate.window_ns == kNsPerSec        ? "s"
                     : rate.window_ns == 60 * kNsPerSec ? "min"
                                                        : "h";
  return std::to_string(rate.count) + "/" + unit;
}

}  // namespace stampede
