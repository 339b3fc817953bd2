#pragma once

#include "checked.hpp"
#include "policy/played_arrivals.hpp"
#include "scenario.hpp"

namespace stampede {

// --workload trace: the trace file read through as the run will play it, before anything
// runs, so a bad line is a usage error naming its line and column; its arrivals become the
// items (--items, when given, cuts them short). With keep, its arrivals are kept there as they
// are played, for the run to play back without reading the trace again.
void take_trace(Scenario& scenario, Errors& errors, PlayedArrivals* keep = nullptr);

}  // namespace stampede
