#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "model/shared_quota.hpp"

namespace stampede {

// One arrival's question to the store: SharedQuota::decide's arguments.
struct QuotaAsk {
  std::int64_t now_ns = 0;
  std::string_view tenant;
  std::int64_t cost = 0;
};

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
  // The asks decided one after another, in their order, each answered as decide would answer
  // it: one verdict per ask. A store that can batches them into one round trip; by default,
  // one decide each.
  virtual std::vector<QuotaVerdicts> decide_all(std::span<const QuotaAsk> asks) {
    std::vector<QuotaVerdicts> out;
    out.reserve(asks.size());
    for (const QuotaAsk& a : asks) out.push_back(decide(a.now_ns, a.tenant, a.cost));
    return out;
  }
};

}  // namespace stampede
