#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/fleet_args.hpp"
#include "cli/simulate_command.hpp"
#include "cli/usage_errors.hpp"
#include "scenario.hpp"

namespace stampede {

// loadgen simulate's own flags, as given (the scenario's are built into a Scenario first).
struct SimulateArgs {
  std::vector<std::string> asserts;
  bool expect_none = false;
  std::string out, report, junit;
  bool no_report = false;
  std::string horizon;
  bool quiet = false;
  std::int64_t trials = 1;
  ShardArgs shard;
  StreamArgs stream;
};

// The simulation to run, or every usage error in the flags, each one line naming its flag.
// env: the shard's variables.
Checked<SimulateCommand> check_simulate(const Scenario& scenario, const std::string& scenario_path,
                                        const SimulateArgs& a, const EnvLookup& env);

}  // namespace stampede
