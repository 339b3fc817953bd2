#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "parsed.hpp"
#include "saturating.hpp"

namespace stampede {

// Scenario time: nanoseconds since the scenario started, with every duration multiplied by
// the time scale on the wall. At --time-scale 0.1 a wall second is ten scenario seconds, so
// the 543-second storm replays in 54 s. Both the provider and the load generator use it, so
// a scenario's outage windows and allowance windows mean the same on both sides.
class ScenarioClock {
 public:
  explicit ScenarioClock(double time_scale = 1.0) : scale_(time_scale) { restart(); }

  // t = 0 now. Safe while other threads read the clock.
  void restart() { restart_at(steady_ns()); }
  // t = 0 at this steady_clock reading (a shard's agreed start, possibly just past).
  void restart_at(std::int64_t steady_wall_ns) {
    start_wall_ns_.store(steady_wall_ns, std::memory_order_relaxed);
  }

  std::int64_t now_ns() const { return to_scenario_ns(steady_ns()); }
  double time_scale() const { return scale_; }

  // A steady_clock reading (ns since its epoch) as scenario time, and back. Saturated: a
  // scenario time past the end of int64 on the wall (a long wait at --time-scale 10) is the
  // end of time, not a moment long past.
  std::int64_t to_scenario_ns(std::int64_t steady_wall_ns) const {
    const auto since =
        saturating_sub(steady_wall_ns, start_wall_ns_.load(std::memory_order_relaxed));
    return saturating_ns(static_cast<double>(since) / scale_);
  }
  std::int64_t to_steady_ns(std::int64_t scenario_ns) const {
    return saturating_add(start_wall_ns_.load(std::memory_order_relaxed), wall_ns(scenario_ns));
  }
  // A scenario duration as a wall duration.
  std::int64_t wall_ns(std::int64_t scenario_ns) const {
    return saturating_ns(static_cast<double>(scenario_ns) * scale_);
  }

  static std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // The steady_clock reading a wall duration from now (a timeout, a grace), saturated.
  static std::int64_t steady_after(std::int64_t wall_ns) {
    return saturating_add(steady_ns(), wall_ns);
  }
  // Unix time in ns (system_clock): what machines agree on (--start-at, a store's epoch).
  static std::int64_t unix_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // A Unix time as the steady_clock reading of the same moment.
  static std::int64_t steady_at_unix(std::int64_t unix_time_ns) {
    return saturating_add(steady_ns(), saturating_sub(unix_time_ns, unix_ns()));
  }

 private:
  double scale_;
  std::atomic<std::int64_t> start_wall_ns_{0};
};

// "0.1", "1": a factor in (0, 1000].
Parsed<double> parse_time_scale(std::string_view text);

}  // namespace stampede
