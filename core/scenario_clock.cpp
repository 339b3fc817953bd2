#include "scenario_clock.hpp"

#include <cstdlib>
#include <string>

namespace stampede {

Parsed<double> parse_time_scale(std::string_view text) {
  const std::string t(text);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !(v > 0.0 && v <= 1000.0)) {
    return Parsed<double>::fail(
        "'" + t +
        "' is not a time scale; expected a factor in (0, 1000], e.g. 0.1 to "
        "replay a scenario ten times faster");
  }
  return Parsed<double>::ok(v);
}

}  // namespace stampede
