#include "policy/workload.hpp"

namespace stampede {

Workload::Workload(const FleetConfig& fleet, std::int64_t queues)
    : kind_(fleet.workload), clients_(fleet.clients), total_(fleet.item_count()) {
  if (kind_ == WorkloadKind::kQueue) {
    for (std::int64_t q = 0; q < queues; ++q) next_queued_.push_back(q);
  }
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
  if (kind_ == WorkloadKind::kSteady || id >= total_) return std::nullopt;
  return WorkItem{id, 0};
}

}  // namespace stampede
