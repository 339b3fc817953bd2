#pragma once

#include <string_view>

namespace stampede {

// A header's name and value, the value without the whitespace around it (RFC 9110 5.5:
// optional whitespace is not part of the value) or the line's end.
struct HeaderField {
  std::string_view name;
  std::string_view value;
};

}  // namespace stampede
