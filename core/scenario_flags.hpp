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
// The flag fakeprovider declares for a field: loadgen's, one name in both. A function of its
// own so that a refused value's suggestions look only at fakeprovider's fields.
std::string provider_flag(const ScenarioField& f);

// Field name -> every value given on the command line for it, in order, as the binaries'
// parsers collect them.
using FlagValues = std::map<std::string, std::vector<std::string>>;

// The scenario file (or the defaults when path is empty) with the flags' values applied: the
// last value of a flag wins, a list field's values replace the file's list.
// A value a field refuses is named by its flag (flag_of: loadgen_flag or provider_flag).
Parsed<Scenario> build_scenario_from_flags(
    const std::string& path, const FlagValues& values,
    std::string (*flag_of)(const ScenarioField&) = loadgen_flag);

}  // namespace stampede
