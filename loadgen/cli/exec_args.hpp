#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/exec_command.hpp"
#include "cli/fleet_args.hpp"
#include "cli/usage_errors.hpp"
#include "scenario.hpp"

namespace stampede {

// loadgen exec's own flags, as given (the provider's are built into a Scenario first, with
// --clients as its fleet.clients).
struct ExecArgs {
  FleetOutputArgs output;
  std::int64_t clients = 0;
  std::int64_t per_process = 1;
  std::string url;
  std::string time_scale = "1", timeout;
  bool wait_ready = false;
  std::string logs;
  std::int64_t log_limit = 64 * 1024;
  std::vector<std::string> command;  // CMD ARGS..., CMD required
};

// The fleet to start, or every usage error in the flags, each one line naming its flag.
Checked<ExecCommand> check_exec(const Scenario& scenario, const std::string& scenario_path,
                                const ExecArgs& a);

}  // namespace stampede
