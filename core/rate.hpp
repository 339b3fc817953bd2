#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parsed.hpp"

namespace stampede {

// A count per window: "100/s", "4000/min", "10000/h".
struct Rate {
  std::int64_t count = 0;
  std::int64_t window_ns = 0;

  double per_second() const;
  bool operator==(const Rate&) const = default;
};

Parsed<Rate> parse_rate(std::string_view text);
std::string format_rate(const Rate& rate);

}  // namespace stampede
