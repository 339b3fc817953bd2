#pragma once

#include <string>
#include <vector>

#include "assertion.hpp"

namespace stampede {

// JUnit XML for a CI server: one test suite, one test case per assertion, a failure element
// naming the actual and expected values of each that failed.
std::string format_junit(const std::string& suite_name, const std::vector<Verdict>& verdicts,
                         double time_s);

std::string xml_escape(const std::string& text);

}  // namespace stampede
