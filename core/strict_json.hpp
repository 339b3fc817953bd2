#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "parsed.hpp"

namespace stampede {

// A JSON document read as a person means it: a key given twice in one object is an error
// naming it by its path ("fleet.clients"), where nlohmann_json would keep the last silently
// and a scenario would run with a value its author may not have read.
Parsed<nlohmann::json> parse_strict_json(std::string_view text);

}  // namespace stampede
