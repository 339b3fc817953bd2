#pragma once

#include <optional>
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

// A case per verdict; a failed one's message names the actual and expected values; a refused
// one (the run could not judge it: exit 2) is an error saying why.
std::vector<JunitCase> junit_cases(const std::vector<Verdict>& verdicts);

// JUnit XML for a CI server: one test suite of these cases.
std::string format_junit(const std::string& suite_name, const std::vector<JunitCase>& cases,
                         double time_s);

// Writes the JUnit file of a command that only judges (simulate, gate): a case per verdict.
// The error, if it could not be written.
std::optional<std::string> write_verdicts_junit(const std::string& path,
                                                const std::string& suite_name,
                                                const std::vector<Verdict>& verdicts);

std::string xml_escape(const std::string& text);

}  // namespace stampede
