#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/fleet_command.hpp"
#include "duration.hpp"
#include "live/request.hpp"

namespace stampede {

// loadgen exec: N processes of the user's own program as the fleet, against a fakeprovider
// whose admin API gives the results (docs/OWN_FLEET.md).
struct ExecCommand : FleetCommand {
  // The scenario's provider places the peak and scales its ratio; fleet.clients is --clients;
  // the fleet's policy fields say nothing, the program has its own.
  std::int64_t clients = 1;
  std::int64_t per_process = 1;
  TargetUrl url;
  TargetUrl provider_admin;
  std::string command;            // CMD, as given
  std::vector<std::string> args;  // ARGS, {url} and {client} not yet replaced
  bool wait_ready = false;
  std::int64_t max_duration_ns = 3600 * kNsPerSec;
  std::optional<std::int64_t> timeout_ns;
  std::int64_t grace_ns = 2 * kNsPerSec;
  std::string logs_dir;
  std::int64_t log_limit_bytes = 64 * 1024;
};

// Checks what only the machine can say (CMD, the process limit, the provider's scale), runs
// the fleet, prints the summary and writes the files. Returns the exit code.
int run_exec_command(const ExecCommand& cmd);

}  // namespace stampede
