#include "policy/workload.hpp"

#include <algorithm>

#include "saturating.hpp"

namespace stampede {

Workload::Workload(const FleetConfig& fleet, std::int64_t queues)
    : kind_(fleet.workload), clients_(fleet.clients), total_(fleet.item_count()) {
  if (kind_ == WorkloadKind::kQueue) {
    for (std::int64_t q = 0; q < queues; ++q) next_queued_.push_back(q);
  }
  if (fleet.rate) {
    rate_count_ = fleet.rate->count;
    rate_window_ns_ = fleet.rate->window_ns;
  }
}

std::int64_t Workload::intended_ns(std::int64_t id) const {
  if (kind_ != WorkloadKind::kSteady) return 0;
  // A rate of one per centuries puts later items past the end of time, not before t = 0.
  const __int128 at = static_cast<__int128>(id) * rate_window_ns_ / rate_count_;
  return static_cast<std::int64_t>(std::min<__int128>(at, kMaxNs));
}

std::optional<WorkItem> Workload::next(std::int64_t client, std::int64_t previous) {
  std::int64_t id = 0;
  if (kind_ == WorkloadKind::kQueue) {
    const auto queues = static_cast<std::int64_t>(next_queued_.size());
    auto& next = next_queued_[static_cast<std::size_t>(client % queues)];
    id = next;
    next += queues;
  } else {
    id = previous < 0 ? client : previous + clients_;
  }
  if (id >= total_) return std::nullopt;
  return WorkItem{id, intended_ns(id)};
}

}  // namespace stampede
