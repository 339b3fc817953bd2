#include "model/attempt_header.hpp"

#include <charconv>
#include <string_view>
#include <system_error>

namespace stampede {

int parse_attempt(const char* text) {
  if (!text) return 1;
  const std::string_view t(text);
  int n = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (ec != std::errc() || end != t.data() + t.size() || n < 1) return 1;
  return n;
}

}  // namespace stampede
