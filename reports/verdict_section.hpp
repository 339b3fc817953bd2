#pragma once

#include <string>
#include <vector>

#include "results.hpp"

namespace stampede {

// The report's opening section (id "verdict"), before any table or chart: whether the checks
// held; for each failed one, by how much (its value against its limit) and what to change
// (check_advice.hpp), one advice for the checks that fail for one cause. Several runs: each
// failed check is named with its run's label. Every string from the results is escaped.
std::string verdict_section(const std::vector<Results>& runs,
                            const std::vector<std::string>& labels);

}  // namespace stampede
