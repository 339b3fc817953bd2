#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "scenario.hpp"

namespace stampede {

struct WorkItem {
  std::int64_t id = 0;
  std::int64_t intended_ns = 0;  // when the item arrived: its latency counts from here
};

// Which item a client takes next in the closed workloads. storm: item k belongs to client
// k mod N, all at t=0; queue: one shared queue, all at t=0, taken by whichever worker is
// free. Pure arithmetic on item ids, no clock. steady is the open model: items arrive on
// their own schedule and find a client (ArrivalSchedule, ClientPool), never asked for here.
// A fleet sharded over processes cannot share one queue: with `queues` > 1 it is split
// statically, item k in queue k mod queues, drained by clients c with c mod queues the same.
class Workload {
 public:
  explicit Workload(const FleetConfig& fleet, std::int64_t queues = 1);

  // The item after `previous` for this client (previous = -1 for its first).
  std::optional<WorkItem> next(std::int64_t client, std::int64_t previous);
  std::int64_t total() const { return total_; }

 private:
  WorkloadKind kind_;
  std::int64_t clients_;
  std::int64_t total_;
  std::vector<std::int64_t> next_queued_;  // per queue, the next item id
};

}  // namespace stampede
