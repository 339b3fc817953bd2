#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace stampede {

// A document's text when its strings may hold bytes from outside, such as a tenant header's
// value: a byte that is not UTF-8 is written as U+FFFD instead of making dump() throw.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace stampede
