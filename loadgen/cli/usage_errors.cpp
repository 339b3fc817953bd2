#include "cli/usage_errors.hpp"

#include <iostream>

#include "one_line.hpp"

namespace stampede {

int usage_errors(const Errors& errors) {
  return say_usage_errors("loadgen", errors);
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
