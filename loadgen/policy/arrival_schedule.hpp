#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "policy/workload.hpp"
#include "scenario.hpp"

namespace stampede {

// When the open model's items arrive: item k at k / rate (steady), or where the area under
// the stages' ramp reaches k (k6's ramping-arrival-rate: the rate goes linearly from one
// target to the next). Deterministic: no draw, no clock. Monotone in k.
class ArrivalSchedule {
 public:
  explicit ArrivalSchedule(const FleetConfig& fleet);

  std::int64_t total() const { return total_; }
  // Scenario ns; k < total().
  std::int64_t at_ns(std::int64_t k) const;

 private:
  struct Segment {
    std::int64_t start_ns = 0;
    double from_per_s = 0;
    double to_per_s = 0;
    double duration_s = 0;
    double before = 0;  // arrivals before the segment starts (the area so far)
  };
  std::int64_t ramp_at_ns(std::int64_t k) const;

  std::int64_t total_ = 0;
  std::int64_t rate_count_ = 0;
  std::int64_t rate_window_ns_ = 0;
  std::vector<Segment> segments_;  // stages only
};

// One stream of a schedule's arrivals: items first, first + stride, ... below the total. A
// fleet split over shards (and a live shard over its event loops) gives each part its own
// stream and its own pool.
class ArrivalStream {
 public:
  ArrivalStream(const ArrivalSchedule& schedule, std::int64_t first, std::int64_t stride)
      : schedule_(&schedule), next_(first), stride_(stride) {}

  // The next arrival, or none: the stream is done. Never earlier than the one before.
  std::optional<WorkItem> peek() const;
  void pop();

 private:
  const ArrivalSchedule* schedule_;
  std::int64_t next_;
  std::int64_t stride_;
  std::int64_t last_ns_ = 0;  // rounding at a stage's end must not step back in time
};

// The open model's pool (k6's maxVUs): the clients not busy with an item, backoff included.
// An arrival takes the one free longest; with none free it is dropped (k6's
// dropped_iterations). Clients are ids of the caller's choosing.
class ClientPool {
 public:
  void release(std::uint32_t client) { free_.push_back(client); }
  std::optional<std::uint32_t> take() {
    if (free_.empty()) return std::nullopt;
    const auto c = free_.front();
    free_.pop_front();
    return c;
  }
  std::size_t free() const { return free_.size(); }

 private:
  std::deque<std::uint32_t> free_;
};

}  // namespace stampede
