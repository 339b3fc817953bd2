#pragma once

#include <cstdint>
#include <functional>

#include "results.hpp"
#include "scenario.hpp"
#include "shard.hpp"

namespace stampede {

struct SimProgress {
  std::int64_t now_ns = 0;
  std::int64_t requests = 0;
  std::int64_t finished = 0;
  std::int64_t items = 0;
};

struct SimOptions {
  // Items still in flight at this scenario time are reported unfinished.
  std::int64_t horizon_ns = 7LL * 24 * 3600 * 1'000'000'000;
  std::function<void(const SimProgress&)> progress;  // called about once a second of wall time
  // The provider's admissions depend on the whole fleet, so a shard simulates all of it and
  // records only its own clients: the shards' recordings add up to the unsharded one.
  Shard shard;
};

// Discrete-event simulation in virtual time, driving the same Backoff, RetryPolicy and
// ProviderPolicy objects as the live engine and the server. Deterministic for a seed.
Results simulate(const Scenario& scenario, const SimOptions& options = {});

}  // namespace stampede
