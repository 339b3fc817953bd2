#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "checked.hpp"
#include "scenario.hpp"
#include "sim/played_arrivals.hpp"

namespace stampede {

// The trace workload with a file to read (a scenario may name none).
bool reads_trace(const FleetConfig& fleet);

// --workload trace: the trace file read through as the run will play it, before anything
// runs, so a bad line is a usage error naming its line and column; its arrivals become the
// items (--items, when given, cuts them short).
void take_trace(Scenario& scenario, Errors& errors);

// simulate's check of a trace before it runs: the file opens and --trace-format is one. Its
// lines are checked as the simulation plays them (TracePass).
void check_trace_file(const Scenario& scenario, Errors& errors);

// simulate's one pass over a trace: read through on a thread of its own, its arrivals kept as
// they are played, while the simulation plays back what is kept so far. The simulation sends
// nothing, so a bad line found on the way is still reported before any result: error().
class TracePass {
 public:
  TracePass(const FleetConfig& fleet, std::shared_ptr<PlayedArrivals> keep);
  ~TracePass();
  TracePass(const TracePass&) = delete;
  TracePass& operator=(const TracePass&) = delete;

  // Waits for the pass's end: what was wrong with the trace, as take_trace would say it, or
  // with keeping its arrivals for the run.
  std::optional<std::string> error();

 private:
  // All before the thread, which reads and writes them.
  FleetConfig fleet_;
  std::shared_ptr<PlayedArrivals> keep_;
  std::optional<std::string> error_;
  std::thread thread_;
};

}  // namespace stampede
