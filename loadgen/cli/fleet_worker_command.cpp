#include "cli/fleet_worker_command.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <utility>

#include "cli/fleet_workers.hpp"
#include "cli/live_process.hpp"
#include "cli/worker_progress.hpp"
#include "gate.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// A worker's run: its supervisor says, of the merged fleet, what one process says of its own.
class ShardWorker : public LiveProcess {
 public:
  using LiveProcess::LiveProcess;

 private:
  // A worker's clients share the source addresses of the whole fleet, its supervisor's.
  Shard source_group() const override { return {}; }

  // Once its connections are open the worker says so, and unless the user gave --start-at it
  // learns the start, which worker 0 names the provider's t = 0. A signal first stops the
  // engine before it sends anything (the supervisor passed it on and sends no start): the
  // start is then now, and the worker still writes its results, every item unfinished, as
  // one stopped later would.
  Parsed<std::int64_t> pick_start() override {
    using Result = Parsed<std::int64_t>;
    say_ready(kWorkerProgressFd);
    if (cmd_.start_at_epoch_ns) return Result::ok(0);
    const auto heard = await_fleet_start(kWorkerStartFd, signals_->fd());
    if (!heard) return Result::fail(heard.error());
    std::int64_t start_ns = heard->unix_ns;
    if (heard->signalled) {
      signals_->take();
      engine_->stop(0);
      start_ns = ScenarioClock::unix_ns();
    }
    start_at_epoch_ns_ = start_ns;
    if (auto e = reset_provider(start_ns)) return Result::fail(*e);
    return Result::ok(ScenarioClock::steady_at_unix(start_ns));
  }

  const char* planned_start() const override { return "the fleet's start"; }
  int report_fd() const override { return kWorkerProgressFd; }
  void say_stopping(int, std::int64_t) const override {}

  // A check a shard cannot judge (it saw no retry) may judge the fleet: a worker's refusal is
  // a failure its supervisor judges again on the merged fleet, and so is whether the fleet
  // could connect at all.
  FleetJudgment judge(const Results& r, const nlohmann::json&,
                      const std::vector<JunitCase>&) const override {
    std::optional<FleetError> error;
    if (auto why = unreachable()) {
      std::cerr << "loadgen: " << *why << "\n";
      error = FleetError{kExitUnreachable, *why};
    }
    return judge_fleet(std::min(gate_exit_code(r.verdicts), kExitFailed), stop_failure_of(r),
                       error);
  }
};

}  // namespace

Checked<RunCommand> check_fleet_worker(const Scenario& scenario, const std::string& scenario_path,
                                       const RunArgs& a, const std::string& dir,
                                       const EnvLookup& env) {
  auto run = check_run(scenario, scenario_path, a, env);
  if (a.shard.shard.empty())
    run.errors.push_back(std::string(kFleetWorkerCommand) + ": needs --shard");
  if (!run.command) return run;
  RunCommand cmd = std::move(*run.command);
  const WorkerFiles files = worker_files(dir, cmd.shard.index);
  cmd.out_path = files.results;
  if (!cmd.dead_letter_path.empty()) cmd.dead_letter_path = files.dead_letters;
  if (!cmd.attempts_path.empty()) cmd.attempts_path = files.attempts;
  cmd.junit_path.clear();
  cmd.report_path.clear();
  cmd.dashboard.reset();
  cmd.quiet = true;
  return checked(std::move(cmd), std::move(run.errors));
}

int run_fleet_worker(const RunCommand& cmd) {
  return run_fleet_command(cmd, [&cmd] { return std::make_unique<ShardWorker>(cmd); });
}

}  // namespace stampede
