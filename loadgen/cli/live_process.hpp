#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/fleet_dashboard.hpp"
#include "cli/fleet_outputs.hpp"
#include "cli/run_command.hpp"
#include "cli/run_dashboard.hpp"
#include "cli/signal_descriptor.hpp"
#include "live/engine.hpp"
#include "live/probe.hpp"
#include "live/provider_admin.hpp"
#include "parsed.hpp"
#include "results.hpp"

namespace stampede {

// One process of the fleet's live clients, from its checks before any load to its files:
// `loadgen run` in one process (run_command), and each worker of a supervisor's
// (fleet_worker_command), which overrides where a worker differs. The phases in order:
// preflight, start, drive, finish.
class LiveProcess {
 public:
  explicit LiveProcess(const RunCommand& cmd);
  virtual ~LiveProcess();
  LiveProcess(const LiveProcess&) = delete;
  LiveProcess& operator=(const LiveProcess&) = delete;

  // Found before any load: the dashboard's address, the open-file limit (for `workers` == 1: a
  // supervisor holds no connection itself), the target, the source addresses, the provider's
  // scale and the settings it enforces, adopted. The exit code when refused.
  std::optional<int> preflight(std::int64_t workers);
  // The engine started, its connections open; the exit code when it could not be.
  std::optional<int> start();
  // Until the engine finishes, a signal stops it, or --max-duration does.
  void drive();
  // The results, the summary, the verdicts and the files; the exit code.
  int finish();

  // The command as preflight left it (its provider section the provider's own), and the
  // provider's admin API when it has one.
  const RunCommand& command() const { return cmd_; }
  std::optional<ProviderAdmin>& admin() { return admin_; }

  // A run that ends before it could be judged: one line, and a JUnit file whose one case is
  // the error, so a CI server shows what the exit code says.
  int refuse(int code, const std::string& message) const;

 protected:
  // The exit code of a finished run and its 'run completed' case.
  struct Judgment {
    int code = 0;
    JunitCase run_case{kRunCase, JunitCase::State::kPassed, {}};
  };

  // Whose clients share this process's source addresses: its own shard's.
  virtual Shard source_group() const;
  // Once the connections are open: the start in steady ns (0: at --start-at), the provider
  // reset to it; a command on its own starts just ahead.
  virtual Parsed<std::int64_t> pick_start();
  // As the line of a late start names the start it missed, short of --start-at.
  virtual const char* planned_start() const;
  // Where progress reports go, for a supervisor; -1: nowhere.
  virtual int report_fd() const;
  // What a signal does, said on stderr.
  virtual void say_stopping(int sig, std::int64_t grace_ns) const;
  // The exit code and the 'run completed' case, each failure said on stderr.
  virtual Judgment judge(const Results& r, const nlohmann::json& doc,
                         const std::vector<JunitCase>& cases) const;

  // Why the run failed by a stop with items unfinished; nullopt when it did not.
  std::optional<std::string> stop_failure_of(const Results& r) const;
  // Why no client could connect at all; nullopt when some could.
  std::optional<std::string> unreachable() const;
  // The provider's t = 0 at start_unix_ns, by shard 0 alone; the error, if any.
  std::optional<std::string> reset_provider(std::optional<std::int64_t> start_unix_ns);

  RunCommand cmd_;  // its provider section becomes the provider's own
  std::optional<ProviderAdmin> admin_;
  std::optional<SignalDescriptor> signals_;  // from the start on: blocked before any thread
  std::optional<LiveEngine> engine_;
  std::optional<std::int64_t> start_at_epoch_ns_;  // the shared start, once known

 private:
  std::optional<int> check_provider_scale();
  std::optional<int> adopt_enforced_provider();
  LiveOptions engine_options() const;
  Parsed<SourcePlan> sources_of() const;
  Results clients_results(LiveRun& run, double start_late_s) const;
  Results results_so_far(Recording recording, double wall_s,
                         const std::optional<Parsed<ProviderStats>>& provider) const;

  std::optional<FleetDashboard> dashboard_;
  std::optional<ProbedTarget> probed_;
  SourcePlan sources_;
  LiveRun run_;
  // The page's events and save from the start on, until the run's results are written: last,
  // so that it goes before what it reads.
  std::optional<RunDashboard> live_;
};

}  // namespace stampede
