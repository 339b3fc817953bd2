#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/fleet_command.hpp"
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

// One process of the fleet's live clients, from its checks before any load to its results:
// `loadgen run` in one process (run_command), and each worker of a supervisor's
// (fleet_worker_command), which overrides where a worker differs.
class LiveProcess : public FleetVariant {
 public:
  explicit LiveProcess(const RunCommand& cmd);
  ~LiveProcess() override;
  LiveProcess(const LiveProcess&) = delete;
  LiveProcess& operator=(const LiveProcess&) = delete;

  // The dashboard's address, the open-file limit (for one process: a supervisor of workers_
  // holds no connection itself), the target, the source addresses, the provider's scale and
  // the settings it enforces, adopted.
  std::optional<int> preflight() override;
  // The engine started, its connections open.
  std::optional<int> start() override;
  std::optional<int> drive() override;
  FleetEnd results() override;

 protected:
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
  virtual FleetJudgment judge(const Results& r, const nlohmann::json& doc,
                              const std::vector<JunitCase>& cases) const;

  // Why the run failed by a stop with items unfinished; nullopt when it did not.
  std::optional<std::string> stop_failure_of(const Results& r) const;
  // Why no client could connect at all; nullopt when some could.
  std::optional<std::string> unreachable() const;
  // The provider's t = 0 at start_unix_ns, by shard 0 alone; the error, if any.
  std::optional<std::string> reset_provider(std::optional<std::int64_t> start_unix_ns);

  RunCommand cmd_;  // its provider section becomes the provider's own
  std::int64_t workers_ = 1;
  std::optional<ProviderAdmin> admin_;
  std::optional<SignalDescriptor> signals_;  // from the start on: blocked before any thread
  std::optional<LiveEngine> engine_;
  std::optional<std::int64_t> start_at_epoch_ns_;  // the shared start, once known

 private:
  std::optional<int> check_provider_scale();
  std::optional<int> adopt_provider();
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
