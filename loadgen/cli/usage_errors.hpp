#pragma once

#include <string>
#include <vector>

#include "assertion.hpp"
#include "checked.hpp"

namespace stampede {

// Says each error on stderr, one line each ("loadgen: ..."); returns kExitUsage.
int usage_errors(const Errors& errors);
int usage_error(const std::string& message);

// The checks a finished run could not judge (Verdict::refused), a line each on stderr as a
// usage error's, --quiet or not: "loadgen: retry_share < 0.5 refused: ...".
void say_refusals(const std::vector<Verdict>& verdicts);

}  // namespace stampede
