#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output_path.hpp"
#include "parsed.hpp"

namespace stampede {

// The usage errors of one command line, each one line naming its flag, in the order the
// flags are checked: a user fixes them all at once rather than one run at a time. Both
// binaries check their flags this way (loadgen's cli/*_args, fakeprovider's cli/provider_args).
using Errors = std::vector<std::string>;

// A command checked from its flags: the command when no error was found, else every error.
template <class T>
struct Checked {
  std::optional<T> command;
  Errors errors;
};

template <class T>
Checked<T> checked(T command, Errors errors) {
  if (!errors.empty()) return {std::nullopt, std::move(errors)};
  return {std::move(command), {}};
}

// The value, or nullopt with its error added to errors.
template <class T>
std::optional<T> take(const Parsed<T>& parsed, Errors& errors) {
  if (parsed) return *parsed;
  errors.push_back(parsed.error());
  return std::nullopt;
}

// The same, its error said after the flag's name ("--start-at: ...").
template <class T>
std::optional<T> take(const std::string& flag, const Parsed<T>& parsed, Errors& errors) {
  if (parsed) return *parsed;
  errors.push_back(flag + ": " + parsed.error());
  return std::nullopt;
}

inline void add_error(std::optional<std::string> error, Errors& errors) {
  if (error) errors.push_back(std::move(*error));
}

// Each output that cannot be written (check_output_flags' one line each), not only the first.
void check_each_output(const std::vector<OutputFlag>& outputs, Errors& errors);

// Says each error on stderr, one line each ("PROGRAM: ..."); returns kExitUsage.
int say_usage_errors(std::string_view program, const Errors& errors);

}  // namespace stampede
