#include "checked.hpp"

#include <iostream>

#include "exit_codes.hpp"
#include "one_line.hpp"

namespace stampede {

void check_each_output(const std::vector<OutputFlag>& outputs, Errors& errors) {
  for (const auto& output : outputs) add_error(check_output_flags({output}), errors);
}

int say_usage_errors(std::string_view program, const Errors& errors) {
  for (const auto& e : errors) std::cerr << program << ": " << one_line(e) << "\n";
  return kExitUsage;
}

}  // namespace stampede
