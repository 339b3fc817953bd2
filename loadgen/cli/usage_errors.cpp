#include "cli/usage_errors.hpp"

#include <iostream>

#include "exit_codes.hpp"
#include "one_line.hpp"

namespace stampede {

void check_each_output(const std::vector<OutputFlag>& outputs, Errors& errors) {
  for (const auto& output : outputs) add_error(check_output_flags({output}), errors);
}

int usage_errors(const Errors& errors) {
  for (const auto& e : errors) std::cerr << "loadgen: " << one_line(e) << "\n";
  return kExitUsage;
}

int usage_error(const std::string& message) {
  return usage_errors({message});
}

void say_refusals(const std::vector<Verdict>& verdicts) {
  for (const auto& v : verdicts) {
    if (v.refused) std::cerr << "loadgen: " << one_line(v.text + " refused: " + v.why) << "\n";
  }
}

}  // namespace stampede
