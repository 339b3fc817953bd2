#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertion.hpp"
#include "cli/progress_line.hpp"
#include "exit_codes.hpp"
#include "listen_address.hpp"
#include "live/engine.hpp"
#include "live/request.hpp"
#include "policy/shard.hpp"
#include "scenario.hpp"

namespace stampede {

struct RunCommand {
  Scenario scenario;
  LiveRequest request;
  std::vector<Assertion> assertions;  // the scenario's expectations, --assert, the default
  LiveOptions options;
  std::optional<TargetUrl> provider_admin;
  std::string provider_admin_token;
  nlohmann::json provider_settings;  // its GET /admin/settings, once read (provider_settings.hpp)
  Shard shard;                       // LiveOptions::shard is taken from here
  std::optional<std::int64_t> start_at_epoch_ns;  // --start-at
  std::string out_path;                           // results JSON
  std::string dead_letter_path;                   // JSON lines
  std::string junit_path;
  std::string report_path;    // HTML report
  std::string attempts_path;  // JSON lines, one per attempt
  bool quiet = false;
  std::int64_t progress_every_ns = kProgressEveryDefaultNs;  // without a terminal
  std::optional<ListenAddress> dashboard;                    // --dashboard HOST:PORT
  std::string dashboard_token;                               // --dashboard-token
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
