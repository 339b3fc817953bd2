#include "policy/open_arrivals.hpp"

#include <fstream>
#include <limits>

namespace stampede {

OpenArrivals::OpenArrivals(const ArrivalSchedule& schedule, const FleetConfig& fleet,
                           std::unique_ptr<std::istream> trace, std::int64_t first,
                           std::int64_t stride, std::unique_ptr<KeptArrivals> played)
    : steady_(schedule, first, stride), file_(std::move(trace)) {
  if (played) {
    // Played as the trace is read: all its arrivals, unless --items cuts them short.
    trace_ = std::make_unique<TraceArrivalStream>(
        std::move(played), fleet.items.value_or(std::numeric_limits<std::int64_t>::max()), first,
        stride);
    return;
  }
  if (!file_) return;
  // The options were checked when the trace was counted; a file changed since then ends
  // its arrivals where it stops reading.
  const auto read = trace_read_options(fleet.trace);
  if (!read) return;
  trace_ = std::make_unique<TraceArrivalStream>(*file_, *read, fleet.trace, fleet.seed,
                                                fleet.item_count(), first, stride);
}

std::unique_ptr<std::istream> open_trace(const FleetConfig& fleet) {
  if (fleet.workload != WorkloadKind::kTrace) return nullptr;
  return std::make_unique<std::ifstream>(fleet.trace.path, std::ios::binary);
}

}  // namespace stampede
