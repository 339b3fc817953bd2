#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/usage_errors.hpp"
#include "dashboard_access.hpp"
#include "listen_address.hpp"
#include "live/http/tls_settings.hpp"
#include "live/request.hpp"
#include "parsed.hpp"
#include "policy/shard.hpp"
#include "scenario.hpp"

namespace stampede {

// The flags more than one command takes, as given, and their checks.

// Sharding: --shard I/N, or the Indexed Job's JOB_COMPLETION_INDEX with STAMPEDE_SHARDS.
struct ShardArgs {
  std::string shard;
  std::string start_at;  // run only
};

// --stream and --max-tokens of run and simulate (docs/LLM.md), as given: the scenario's
// fleet.stream and fleet.max_tokens, each a flag of the commands (--stream takes no value).
struct StreamArgs {
  bool stream = false;
  std::int64_t max_tokens = 0;  // 0: not given
};
// The flags onto the scenario: --stream streams it, --max-tokens bounds its answers (without
// --stream, it makes every request an LLM request answered in one body).
void take_stream_flags(const StreamArgs& a, Scenario& scenario);

// The files, assertions and bounds of a live fleet: run and exec take the same.
struct FleetOutputArgs {
  std::vector<std::string> asserts;
  std::string out, dead_letter, junit, report;
  bool no_report = false;
  bool quiet = false;
  std::string progress_every = "10s";
  std::string provider_admin, provider_admin_token;
  std::string max_duration = "1h", grace;  // grace: empty for the command's default
  std::string dashboard;                   // HOST:PORT
  std::string dashboard_token;             // --dashboard-token, LOADGEN_DASHBOARD_TOKEN
};

Parsed<std::int64_t> positive_duration(const std::string& flag, const std::string& text);

// --grace of run, on the wall: at most timeout_wall_ns, the longest a request is in flight.
Parsed<std::int64_t> grace_ns(const std::string& text, std::int64_t timeout_wall_ns);

Parsed<Shard> shard_from(const ShardArgs& a, const EnvLookup& env);

// Where the HTML report goes: --report, else beside --out (a file) unless --no-report.
std::string report_path_for(const std::string& report, const std::string& out, bool no_report);
// The flag a report's path comes from, for its error: --report, or --out beside which it goes.
std::string report_flag(const std::string& report);

Parsed<std::string> read_text_file(const std::string& flag, const std::string& path);

// A URL given to flag, its errors naming that flag.

// The outputs run and exec share: the files, the report beside --out, the quiet flag,
// --progress-every (on the wall, its error added to errors) and --dashboard, which beyond
// loopback needs --dashboard-token as the provider's admin port needs its token.
template <class Command>
void take_fleet_outputs(const FleetOutputArgs& o, Command& cmd, Errors& errors) {
  cmd.out_path = o.out;
  cmd.dead_letter_path = o.dead_letter;
  cmd.junit_path = o.junit;
  cmd.report_path = report_path_for(o.report, o.out, o.no_report);
  cmd.quiet = o.quiet;
  if (auto every = take(positive_duration("--progress-every", o.progress_every), errors))
    cmd.progress_every_ns = *every;
  if (!o.dashboard.empty())
    cmd.dashboard = take("--dashboard", parse_listen_address(o.dashboard), errors);
  cmd.dashboard_token = o.dashboard_token;
  if (cmd.dashboard) {
    add_error(
        token_needed_beyond_loopback("--dashboard", o.dashboard, *cmd.dashboard, o.dashboard_token,
                                     "--dashboard-token", "LOADGEN_DASHBOARD_TOKEN"),
        errors);
  }
}

}  // namespace stampede
