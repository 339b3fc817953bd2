#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace stampede {

// A whole number read from a document as an int64. nlohmann's get<int64_t> casts a float of
// any size (undefined past int64's range) and wraps an unsigned one past it: a count or a time
// in a results file is refused instead unless it is an integer an int64 holds.
inline std::int64_t json_int64(const nlohmann::json& j) {
  if (j.is_number_unsigned() &&
      j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw std::invalid_argument("a number past int64");
  if (!j.is_number_integer()) throw std::invalid_argument("not a whole number: " + j.dump());
  return j.get<std::int64_t>();
}

// The same, of an optional field.
inline std::int64_t json_int64(const nlohmann::json& j, const char* key, std::int64_t absent) {
  const auto it = j.find(key);
  return it == j.end() ? absent : json_int64(*it);
}

}  // namespace stampede
