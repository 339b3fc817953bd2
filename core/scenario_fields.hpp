#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario.hpp"

namespace stampede {

// Which binaries declare a field's flag (a bit each).
enum FlagIn : unsigned { kNoFlag = 0, kLoadgen = 1, kFakeprovider = 2, kBothBinaries = 3 };

// One scenario field, all of it in one place: how the file and the flag spell it, what --help
// says of it, how it reads into a Scenario, how to_json prints it back and what makes its
// value wrong on its own. set_field, to_json, validate and both binaries' scenario flags are
// made from the table, so adding a field is adding an entry (tests/core/scenario_field_table_
// test.cpp walks it). The rules that involve two fields sit beside the table, in validate.
struct ScenarioField {
  using Parse = std::optional<std::string> (*)(Scenario&, const nlohmann::json&);
  using Print = std::optional<nlohmann::json> (*)(const Scenario&);
  using Check = std::vector<std::string> (*)(const Scenario&);

  std::string_view name{};  // "fleet.base": the section and key in the file, and errors' prefix
  // "--base". loadgen spells a provider flag that a fleet flag already has "--provider-...",
  // and fakeprovider spells it so too (loadgen_flag), this short one kept as an old spelling.
  std::string_view flag{};
  // An earlier spelling of the flag, still taken (and named as old) for the scripts that use it.
  std::string_view old_flag{};
  unsigned in = kNoFlag;       // FlagIn bits: the binaries that declare the flag
  std::string_view no_flag{};  // why there is none, when there is none
  std::string_view help{};
  std::string_view type{};  // --help's placeholder: "DURATION", "INT", "on|off"
  // The default as the flag spells it; empty when leaving it out means something no value
  // spells (no allowance: unlimited; items: one per client).
  std::string_view default_text{};
  std::string_view example{};  // a value other than the default, as a flag spells it
  bool list = false;           // the file gives a list; the flag repeats, replacing the file's
  bool dialect = false;        // fakeprovider lists it under "Dialect": how the wire is spoken
  Parse parse = nullptr;       // from a file value or a flag's text; the error without the name
  Print print = nullptr;       // to_json's value; none: the document leaves the key out
  Check check = nullptr;       // what is wrong with the value alone, without the name

  std::string_view section() const;  // "fleet", "provider", or "" for a top-level key
  std::string_view key() const;      // the name within its section: "base"
};

// Every field, in the order --help lists their flags.
const std::vector<ScenarioField>& scenario_fields();
const ScenarioField* find_field(std::string_view name);
// The fields only the trace workload reads: its file and how it is played.
const std::vector<std::string_view>& trace_field_names();

}  // namespace stampede
