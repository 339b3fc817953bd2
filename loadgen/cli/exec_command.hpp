#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertion.hpp"
#include "cli/progress_line.hpp"
#include "duration.hpp"
#include "exit_codes.hpp"
#include "listen_address.hpp"
#include "live/request.hpp"
#include "scenario.hpp"

namespace stampede {

// loadgen exec: N processes of the user's own program as the fleet, against a fakeprovider
// whose admin API gives the results (docs/OWN_FLEET.md).
struct ExecCommand {
  // The provider: as --scenario and the provider flags say until its own settings are read,
  // then those (provider_settings.hpp); its allowance and outages place the peak and scale
  // its ratio. fleet.clients is --clients; the fleet's
  // policy fields say nothing, the program has its own.
  Scenario scenario;
  std::vector<Assertion> assertions;  // the scenario's expectations and --assert
  std::int64_t clients = 1;
  std::int64_t per_process = 1;
  TargetUrl url;
  TargetUrl provider_admin;
  std::string provider_admin_token;
  nlohmann::json provider_settings;  // its GET /admin/settings, once read (provider_settings.hpp)
  std::string command;               // CMD, as given
  std::vector<std::string> args;     // ARGS, {url} and {client} not yet replaced
  bool wait_ready = false;
  std::int64_t max_duration_ns = 3600 * kNsPerSec;
  std::optional<std::int64_t> timeout_ns;
  std::int64_t grace_ns = 2 * kNsPerSec;
  std::string logs_dir;
  std::int64_t log_limit_bytes = 64 * 1024;
  std::string out_path, dead_letter_path, junit_path, report_path;
  bool quiet = false;
  std::int64_t progress_every_ns = kProgressEveryDefaultNs;  // without a terminal
  std::optional<ListenAddress> dashboard;                    // --dashboard HOST:PORT
  std::string dashboard_token;                               // --dashboard-token
};

// Checks what only the machine can say (CMD, the process limit, the provider's scale), runs
// the fleet, prints the summary and writes the files. Returns the exit code.
int run_exec_command(const ExecCommand& cmd);

}  // namespace stampede
