#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertion.hpp"
#include "cli/fleet_outputs.hpp"
#include "cli/progress_line.hpp"
#include "exit_codes.hpp"
#include "gate.hpp"
#include "listen_address.hpp"
#include "live/provider_admin.hpp"
#include "live/request.hpp"
#include "results.hpp"
#include "scenario.hpp"

namespace stampede {

// The one skeleton of the commands that drive a fleet, `loadgen run` and `loadgen exec`:
// preflight, start, drive, results, outputs, in that order. Each command supplies its own
// steps (a FleetVariant); what they share is here once.

// What every fleet command carries besides its own fields.
struct FleetCommand {
  // The provider: as the scenario and the flags say until its own settings are read, then
  // those (adopt_enforced_provider).
  Scenario scenario;
  std::vector<Assertion> assertions;  // the scenario's expectations, --assert, the default
  std::string provider_admin_token;
  nlohmann::json provider_settings;  // its GET /admin/settings, once read (provider_settings.hpp)
  std::string out_path;              // results JSON
  std::string dead_letter_path;      // JSON lines
  std::string junit_path;
  std::string report_path;  // HTML report
  bool quiet = false;
  std::int64_t progress_every_ns = kProgressEveryDefaultNs;  // without a terminal
  std::optional<ListenAddress> dashboard;                    // --dashboard HOST:PORT
  std::string dashboard_token;                               // --dashboard-token
};

// A fleet that ended before it could be judged: one line on stderr, and a JUnit file whose one
// case is the error, so a CI server shows what the exit code says. Returns code.
int refuse(const FleetCommand& cmd, int code, const std::string& message);

// The fleet's provider is the one it meets: the settings it enforces become the scenario's
// provider section, or the command is refused before any load. A check those settings give no
// meaning (in the context context_of makes of them) is then a usage error, as it is when the
// flags are read. The exit code when refused.
std::optional<int> adopt_enforced_provider(
    FleetCommand& cmd, const ProviderAdmin& admin, const TargetUrl& url,
    const std::function<MetricContext(const ProviderConfig&)>& context_of);

// What stopped a fleet before its end, as the results and stderr say it: "a signal", or the
// bound that did ("--max-duration 1h", "--timeout"); empty: nothing did.
enum class FleetStopCause { kNone, kSignal, kBound };
std::string stopped_by(FleetStopCause cause, std::string_view bound);

// An error found at a fleet's end that makes its exit code: a target no client could reach,
// the harness, a worker that failed.
struct FleetError {
  int code = 0;
  std::string why;
};

// The exit code and the 'run completed' case of a fleet judged at its end: checks_code (its
// checks' code, gate_exit_code or verdict_code), raised to 1 by a stop that left items
// unfinished (stop_failure), and to the error's code by an error, whose case it then is.
struct FleetJudgment {
  int code = 0;
  JunitCase run_case{kRunCase, JunitCase::State::kPassed, {}};
};
FleetJudgment judge_fleet(int checks_code, const std::optional<std::string>& stop,
                          const std::optional<FleetError>& error);

// What the results step gives the outputs: the results and their document (the engine's
// sections in it), the wall seconds, the engine's own files, and the judgment so far.
struct FleetEnd {
  Results results;
  nlohmann::json doc;
  double wall_s = 0;
  std::vector<OutputFile> files;
  FleetJudgment judgment;
};

// A command's own steps. Each of the first three may end the command with an exit code,
// having said why (refuse): a refusal before any load, a fleet that could not be started or
// driven, or one carried out elsewhere (run's supervisor of worker processes).
class FleetVariant {
 public:
  virtual ~FleetVariant() = default;
  // Found before any load.
  virtual std::optional<int> preflight() = 0;
  virtual std::optional<int> start() = 0;
  // Until the fleet ends, a signal stops it (the results still written), or a bound does.
  virtual std::optional<int> drive() = 0;
  // The results, the summary and the verdicts.
  virtual FleetEnd results() = 0;
};

// The steps of the variant make_variant makes, in order, then the outputs (the document, the
// engine's files, the report, JUnit last); the exit code, 3 when a file could not be written
// or the harness failed.
int run_fleet_command(const FleetCommand& cmd,
                      const std::function<std::unique_ptr<FleetVariant>()>& make_variant);

}  // namespace stampede
