#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace stampede {

// An old spelling of current's flag, kept for the scripts that use it: it gives its values to
// the same place, says the new name on stderr, and is not listed in --help.
void keep_old_spelling(CLI::App& app, const CLI::Option& current, const std::string& old,
                       std::vector<std::string>& values, const std::string& program);

}  // namespace stampede
