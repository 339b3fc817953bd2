#pragma once

#include <string>
#include <vector>

#include "cli/fleet_args.hpp"
#include "cli/run_command.hpp"
#include "cli/usage_errors.hpp"
#include "live/http/tls_settings.hpp"
#include "scenario.hpp"

namespace stampede {

// Where run takes its tenant key when no flag gives one: an argument is on every `ps` line of a
// shared CI runner, the environment is not.
inline constexpr const char* kApiKeyEnv = "STAMPEDE_API_KEY";

// loadgen run's own flags, as given (the scenario's are built into a Scenario first).
struct RunArgs {
  FleetOutputArgs output;
  std::string url, method, body, api_key, api_keys_file;
  std::vector<std::string> headers;
  std::string time_scale = "1";
  std::string attempts_out;
  unsigned loops = 0;
  std::string http_client = "auto";
  bool no_latency_compensation = false;
  bool no_trace_headers = false;
  bool expect_none = false, allow_time_scale = false;
  StreamArgs stream;
  ShardArgs shard;
  TlsFlags tls;
  std::int64_t processes = 0;               // 0: as many as the open-file limit needs
  std::int64_t connections_per_source = 0;  // 0: from the local port range
  std::vector<std::string> given;           // the arguments after `run`, for the workers
};

// The run to carry out, or every usage error in the flags, each one line naming its flag. Reads
// the files the flags name (--body @FILE, --api-keys-file, the TLS files) and the environment
// (env: $STAMPEDE_API_KEY, the shard's and curl's CA variables) before any load.
Checked<RunCommand> check_run(const Scenario& scenario, const std::string& scenario_path,
                              const RunArgs& a, const EnvLookup& env);

}  // namespace stampede
