#pragma once

#include <optional>
#include <string_view>

namespace stampede {

// What a scenario field's flag takes and what it is when not given, for --help: the type as
// a placeholder ("DURATION", "INT", "on|off"), and the default as the flag would spell it, or
// empty when leaving it out means something no value spells (no allowance: unlimited; items:
// one per client). Every field a flag sets has an entry: a test holds each binary's flags to it
// and each default to the scenario's.
struct FieldValueHelp {
  std::string_view type;
  std::string_view default_text;
};

std::optional<FieldValueHelp> field_value_help(std::string_view field);

}  // namespace stampede
