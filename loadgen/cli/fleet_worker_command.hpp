#pragma once

#include <string>

#include "cli/run_args.hpp"
#include "cli/run_command.hpp"
#include "cli/usage_errors.hpp"
#include "scenario.hpp"

namespace stampede {

// `loadgen fleet-worker`: one worker of a `loadgen run` supervisor (fleet_supervisor.hpp),
// internal and hidden from --help. It takes run's arguments as the user gave them, its shard
// and the supervisor's directory, and runs its shard as `loadgen run --shard` would, but for
// what its supervisor does for the whole fleet: the user's files, the summary, what a signal
// does and each failure, said of the merged fleet. It writes its results into the directory,
// says "ready" once its connections are open and reports its progress (fleet_workers.hpp).

// Run's checks, then the worker's files in dir in place of the user's.
Checked<RunCommand> check_fleet_worker(const Scenario& scenario, const std::string& scenario_path,
                                       const RunArgs& a, const std::string& dir,
                                       const EnvLookup& env);

// The worker's exit code: its shard's verdict, at most 1 (a check a shard cannot judge may
// judge the fleet), 2 for a usage error, 3 for a harness failure or an unreachable target.
int run_fleet_worker(const RunCommand& cmd);

}  // namespace stampede
