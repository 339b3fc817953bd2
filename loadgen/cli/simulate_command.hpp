#pragma once

#include <memory>
#include <string>
#include <vector>

#include "assertion.hpp"
#include "policy/shard.hpp"
#include "scenario.hpp"
#include "sim/played_arrivals.hpp"

namespace stampede {

struct SimulateCommand {
  Scenario scenario;
  std::vector<Assertion> assertions;  // the scenario's expectations, --assert, delivered > 0
  std::string out_path;               // results JSON; empty: none
  std::string report_path;            // HTML report; empty: none
  std::string junit_path;             // JUnit XML, a case per check; empty: none
  std::int64_t horizon_ns = 0;        // 0: the engine's default
  bool quiet = false;
  std::int64_t trials = 1;  // > 1: report the means (sim_trials.hpp)
  Shard shard;              // record only this shard's clients
  // The trace workload: where the run's pass over the trace keeps its arrivals as it plays
  // them, for the simulation to play back as they come (the trace read once).
  std::shared_ptr<PlayedArrivals> played;
};

// Runs the simulation, prints the summary, writes the results. Returns the exit code:
// 0 every check holds, 1 some failed, 2 one the simulation cannot judge (gate_exit_code), 3 a
// file could not be written.
int run_simulate_command(const SimulateCommand& cmd);

}  // namespace stampede
