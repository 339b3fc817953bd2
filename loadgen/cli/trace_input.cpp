#include "cli/trace_input.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "policy/trace_arrivals.hpp"

namespace stampede {

void take_trace(Scenario& scenario, Errors& errors, PlayedArrivals* keep) {
  auto& fleet = scenario.fleet;
  if (fleet.workload != WorkloadKind::kTrace || fleet.trace.path.empty()) return;
  const std::string flag = "--trace " + fleet.trace.path + ": ";
  std::ifstream file(fleet.trace.path, std::ios::binary);
  if (!file) {
    errors.push_back(flag + "cannot open it (" + std::strerror(errno) +
                     "); give the path of a readable trace file");
    return;
  }
  const auto count = count_trace_arrivals(file, fleet.trace, fleet.seed, keep);
  if (!count) {
    errors.push_back(flag + count.error());
    return;
  }
  fleet.items = std::min(fleet.items.value_or(*count), *count);
}

}  // namespace stampede
