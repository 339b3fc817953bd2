#pragma once

#include <string>
#include <vector>

#include "assertion.hpp"

namespace stampede {

// One test case of the JUnit file. A run that could not be carried out (exit 3) is an error,
// a check that did not hold (exit 1) a failure, so the file says what the exit code says.
struct JunitCase {
  enum class State { kPassed, kFailed, kError };
  std::string name;
  State state = State::kPassed;
  std::string message;  // a failure's or an error's, one line
};

// A case per verdict; a failed one's message names the actual and expected values.
std::vector<JunitCase> junit_cases(const std::vector<Verdict>& verdicts);

// JUnit XML for a CI server: one test suite of these cases.
std::string format_junit(const std::string& suite_name, const std::vector<JunitCase>& cases,
                         double time_s);

std::string xml_escape(const std::string& text);

}  // namespace stampede
