#pragma once

#include <map>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "scenario_fields.hpp"

namespace stampede {

// The flags that override scenario fields come from the field table (scenario_fields.hpp):
// each binary's main.cpp registers its fields' flags with its own parser, and every value
// goes through set_field, the scenario file's parser.

// The flag loadgen declares for a field, and fakeprovider too, so that one thing has one name
// in both: where loadgen takes a provider field whose flag a fleet flag has too, "--provider-"
// and the rest (--provider-seed, --provider-retry-after).
std::string loadgen_flag(const ScenarioField& f);

// Field name -> every value given on the command line for it, in order, as the binaries'
// parsers collect them.
using FlagValues = std::map<std::string, std::vector<std::string>>;

// The scenario file (or the defaults when path is empty) with the flags' values applied: the
// last value of a flag wins, a list field's values replace the file's list.
Parsed<Scenario> build_scenario_from_flags(const std::string& path, const FlagValues& values);

}  // namespace stampede
