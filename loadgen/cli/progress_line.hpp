#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "duration.hpp"
#include "live/engine.hpp"
#include "sim/sim_engine.hpp"

namespace stampede {

// The progress line of `loadgen run` and `loadgen exec`: its text is a pure function of
// snapshots of the run's counts (tested by tables); ProgressPrinter only puts it on stderr.
// On a terminal it is redrawn in place each second; without one (a CI log) it is a plain line
// every --progress-every of wall time, k6's convention, so a log shows a run while it runs.

inline constexpr std::int64_t kProgressEveryDefaultNs = 10 * kNsPerSec;
inline constexpr std::int64_t kProgressTtyRefreshNs = kNsPerSec;

// "t=12.0 s  items: 150 delivered, 30 in backoff, 2 dead-lettered  requests 480 (40.0/s)
// statuses: 2xx 150, 429 320, 5xx 8, errors 2": t in scenario seconds, as the summary counts
// them (wall seconds / time_scale), and the rate per scenario second since `before` (the
// snapshot of the line before; a zeroed one for the first).
std::string format_run_progress(const LiveProgress& now, const LiveProgress& before,
                                double time_scale);

// What an exec fleet's processes have come to so far (exec runs at time scale 1).
struct ExecProgress {
  std::int64_t elapsed_ns = 0;  // since the release; 0 before it
  bool released = false;
  std::int64_t running = 0;        // processes
  std::int64_t ended = 0;          // processes
  std::int64_t delivered = 0;      // clients of processes that exited 0
  std::int64_t dead_lettered = 0;  // clients of processes that failed
};

// "t=12.0 s  processes: 380 running, 20 ended  clients: 18 delivered, 2 dead-lettered", or
// "waiting for the release  processes: 400 running" before it.
std::string format_exec_progress(const ExecProgress& p);

// "simulated t=42 s  requests 480  finished 150 of 1000": a simulation's, on its own clock.
std::string format_sim_progress(const SimProgress& p);

// Puts progress lines on stderr: in place on a terminal, else a line every period_ns.
class ProgressPrinter {
 public:
  // The first line is due one period after start_ns (steady): a line at t=0 says nothing.
  ProgressPrinter(bool enabled, bool tty, std::int64_t period_ns, std::int64_t start_ns);
  // A line is due at now_ns (steady), or none is printed at all.
  bool due(std::int64_t now_ns) const;
  // How long until the next line is due, for a poll's timeout; long when none ever is.
  std::int64_t until_due_ns(std::int64_t now_ns) const;
  void print(const std::string& line, std::int64_t now_ns);
  // Clears a terminal's line before other text (a signal's note, the summary).
  void clear();

 private:
  bool enabled_;
  bool tty_;
  std::int64_t period_ns_;
  std::int64_t next_ns_;
  bool drawn_ = false;
};

}  // namespace stampede
