#pragma once

#include <string>

#include "results.hpp"

namespace stampede {

// The summary printed after a run, in the words of the seeds' storm chapter: the busiest
// second after recovery, requests made, when the last item got through, and the waves.
std::string format_terminal_summary(const Results& r);

}  // namespace stampede
