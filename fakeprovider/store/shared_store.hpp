#pragma once

#include <cstdint>

#include "model/shared_quota.hpp"

namespace stampede {

// A SharedQuota whose replicas share one scenario clock: its t = 0 (the epoch) is the store's,
// and a reset on any replica starts a new one for all. What LockedProvider needs of a store;
// RedisQuota is the real one, the tests bring fakes. Not safe to call from two threads at once.
class SharedStore : public SharedQuota {
 public:
  // t = 0 of the scenario this replica decides in, as system_clock nanoseconds. A decide may
  // move it (another replica was reset).
  virtual std::int64_t epoch_wall_ns() const = 0;
  // A new scenario from wall_ns for every replica: the limits start empty. False when the
  // store is unreachable.
  virtual bool reset(std::int64_t wall_ns) = 0;
};

}  // namespace stampede
