#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/fleet_command.hpp"
#include "exit_codes.hpp"
#include "live/engine.hpp"
#include "live/request.hpp"
#include "policy/shard.hpp"

namespace stampede {

struct RunCommand : FleetCommand {
  LiveRequest request;
  LiveOptions options;
  std::optional<TargetUrl> provider_admin;
  Shard shard;                                    // LiveOptions::shard is taken from here
  std::optional<std::int64_t> start_at_epoch_ns;  // --start-at
  std::string attempts_path;                      // JSON lines, one per attempt
  // Beyond one process: workers. 0: as many as the open-file limit needs (fleet_workers.hpp).
  std::int64_t processes = 0;
  bool shard_given = false;                 // --shard, or the Indexed Job's variables
  std::int64_t connections_per_source = 0;  // 0: from the local port range
  std::vector<std::string> run_args;        // as given after `run`, for the workers
};

// Runs the fleet against the target, prints the summary, writes the files. Returns the exit
// code: 0 every check holds, 1 some failed (an assertion, the default expectation that some
// item is delivered, or the run was cut short with items unfinished), 2 the fakeprovider runs
// at another time scale, 3 the target was unreachable or the harness failed. Once the output
// paths are checked every exit writes the JUnit file (when asked), saying the same.
// Beyond what one process may hold connections for (or with --processes N), it supervises N
// worker processes, shards i/N of the fleet started together, and merges their results as
// `loadgen merge` does: the same files, summary and exit code, a worker's failure exit 3
// (fleet_supervisor.hpp).
int run_run_command(const RunCommand& cmd);

}  // namespace stampede
