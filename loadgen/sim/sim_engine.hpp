#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "policy/shard.hpp"
#include "results.hpp"
#include "scenario.hpp"
#include "sim/played_arrivals.hpp"

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
  // The trace workload: its arrivals as a pass over the trace plays them (the scenario's seed),
  // played back as they are kept, even while the pass still reads; the items are the count at
  // its end. None: each stream reads the trace, whose items were counted before.
  const PlayedArrivals* played = nullptr;
};

// What both simulators (plain and occ) share around their event loops.
// Calls SimOptions::progress about once a second of wall time; cheap enough to tick per event.
class SimProgressTicker {
 public:
  explicit SimProgressTicker(const SimOptions& options) : options_(options) {}
  void tick(std::int64_t now_ns, const Recording& rec) {
    if (!options_.progress || (++events_ & 0xFFFF) != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report_ < std::chrono::seconds(1)) return;
    last_report_ = now;
    options_.progress({now_ns, rec.requests, rec.delivered + rec.dead_lettered, rec.items});
  }

 private:
  const SimOptions& options_;
  std::int64_t events_ = 0;
  std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
};

// The results of a finished simulation: what is neither delivered nor dead-lettered is
// unfinished, and the provider's side was recorded too.
Results simulation_results(const Scenario& scenario, Recording rec);

// Discrete-event simulation in virtual time, driving the same Backoff, RetryPolicy and
// ProviderPolicy objects as the live engine and the server. Deterministic for a seed.
Results simulate(const Scenario& scenario, const SimOptions& options = {});

}  // namespace stampede
