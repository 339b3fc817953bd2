#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede {

// Edits between two names: insertions, deletions, substitutions and swaps of two adjacent
// characters (the optimal string alignment distance), so "clinets" is one edit from "clients".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate a mistyped name most likely meant: the nearest by edit distance when it is
// close enough to be a slip (at most a third of the name's length in edits), else
// the one candidate the name begins. The first such candidate in the list on a tie; none when
// nothing is near, so an error can say "did you mean" only when it means it.
std::optional<std::string> nearest_name(std::string_view given,
                                        const std::vector<std::string>& candidates);

// "; did you mean 'X'?" for the nearest name, or "" when none is near.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

// For a command line a parser refused: the first argument before "--" that is written as a
// flag ("-x", "--name", "--name=value") and is none of `known` (every spelling, dashes
// included), as "unknown flag '--clinets'; did you mean '--clients'?"; none when every flag
// is known. "-1s" and "-5" are values (a negative number), not flags.
std::optional<std::string> unknown_flag(const std::vector<std::string>& args,
                                        const std::vector<std::string>& known);

}  // namespace stampede
