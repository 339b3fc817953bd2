#include "cli/simulate_args.hpp"

#include <utility>

#include "cli/run_stream.hpp"
#include "cli/trace_input.hpp"
#include "gate.hpp"

namespace stampede {
namespace {

// The simulator's provider is the model itself: its view is always there. A simulation is held
// to delivered > 0 as a live run is: a policy that gives every item up failed, whatever its
// peak.
void take_assertions(const SimulateArgs& a, const std::string& scenario_path, SimulateCommand& cmd,
                     Errors& errors) {
  const auto& s = cmd.scenario;
  if (auto checks =
          take(gate_assertions(s.expectations, a.asserts, a.expect_none,
                               metric_context("simulate", s.provider, true), scenario_path),
               errors))
    cmd.assertions = *checks;
}

void take_shard(const SimulateArgs& a, const EnvLookup& env, SimulateCommand& cmd, Errors& errors) {
  const auto shard = take(shard_from(a.shard, env), errors);
  if (!shard) return;
  cmd.shard = *shard;
  if (shard->sharded() && a.trials > 1)
    errors.push_back(
        "--shard: a sharded simulation takes one trial; drop --trials or run unsharded");
}

void take_outputs(const SimulateArgs& a, SimulateCommand& cmd, Errors& errors) {
  cmd.out_path = a.out;
  cmd.report_path = report_path_for(a.report, a.out, a.no_report);
  cmd.junit_path = a.junit;
  cmd.quiet = a.quiet;
  check_each_output({{"--out", cmd.out_path},
                     {report_flag(a.report), cmd.report_path},
                     {"--junit", cmd.junit_path}},
                    errors);
}

}  // namespace

Checked<SimulateCommand> check_simulate(const Scenario& scenario, const std::string& scenario_path,
                                        const SimulateArgs& a, const EnvLookup& env) {
  Errors errors;
  SimulateCommand cmd;
  cmd.scenario = scenario;
  // The trace's lines are checked as it is read, by the run's own pass (TracePass).
  check_trace_file(cmd.scenario, errors);
  if (reads_trace(scenario.fleet)) cmd.played = std::make_shared<PlayedArrivals>();
  take_stream_flags(a.stream, cmd.scenario);
  add_error(simulated_stream_error(cmd.scenario), errors);
  take_assertions(a, scenario_path, cmd, errors);
  if (!a.horizon.empty()) {
    if (auto h = take(positive_duration("--horizon", a.horizon), errors)) cmd.horizon_ns = *h;
  }
  cmd.trials = a.trials;
  // Each trial draws with its own seed: a thinned or multiplied trace's count would differ
  // from the one counted here.
  if (a.trials > 1 && scenario.fleet.workload == WorkloadKind::kTrace &&
      scenario.fleet.trace.playback.scale != 1)
    errors.push_back(
        "--trials: each trial would keep a different share of the trace at --scale; run one "
        "trial per --seed instead");
  take_shard(a, env, cmd, errors);
  take_outputs(a, cmd, errors);
  return checked(std::move(cmd), std::move(errors));
}

}  // namespace stampede
