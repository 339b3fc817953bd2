#include "workload.hpp"

namespace stampede {

Workload::Workload(const FleetConfig& fleet)
    : kind_(fleet.workload), clients_(fleet.clients), total_(fleet.item_count()) {
  if (fleet.rate) {
    rate_count_ = fleet.rate->count;
    rate_window_ns_ = fleet.rate->window_ns;
  }
}

std::int64_t Workload::intended_ns(std::int64_t id) const {
  if (kind_ != WorkloadKind::kSteady) return 0;
  return static_cast<std::int64_t>(static_cast<__int128>(id) * rate_window_ns_ / rate_count_);
}

std::optional<WorkItem> Workload::next(std::int64_t client, std::int64_t previous) {
  std::int64_t id = 0;
  if (kind_ == WorkloadKind::kQueue) {
    id = next_shared_++;
  } else {
    id = previous < 0 ? client : previous + clients_;
  }
  if (id >= total_) return std::nullopt;
  return WorkItem{id, intended_ns(id)};
}

}  // namespace stampede
