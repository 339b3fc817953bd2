#include "cli/simulate_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/junit_writer.hpp"
#include "cli/progress_line.hpp"
#include "cli/run_summary.hpp"
#include "cli/trace_input.hpp"
#include "cli/usage_errors.hpp"
#include "exit_codes.hpp"
#include "gate.hpp"
#include "html_report.hpp"
#include "output_path.hpp"
#include "scenario_clock.hpp"
#include "sim/sim_trials.hpp"
#include "terminal_summary.hpp"

namespace stampede {
int run_simulate_command(const SimulateCommand& cmd) {
  SimOptions options;
  if (cmd.horizon_ns > 0) options.horizon_ns = cmd.horizon_ns;
  options.shard = cmd.shard;
  // The trace read on a thread of its own while the simulation plays it (a second core's
  // work beside the simulation's).
  std::optional<TracePass> pass;
  if (cmd.played) pass.emplace(cmd.scenario.fleet, cmd.played);
  options.played = cmd.played.get();
  // As run's: redrawn each second on a terminal, a plain line every 10 s in a CI log, so a
  // simulation of a million clients never looks hung.
  ProgressPrinter printer(!cmd.quiet, isatty(STDERR_FILENO) != 0, kProgressEveryDefaultNs,
                          ScenarioClock::steady_ns());
  options.progress = [&](const SimProgress& p) {
    if (const auto now = ScenarioClock::steady_ns(); printer.due(now))
      printer.print(format_sim_progress(p), now);
  };
  Results results = simulate_trials(cmd.scenario, cmd.trials, options);
  if (cmd.shard.sharded()) results.shard = ShardInfo{cmd.shard.index, cmd.shard.count, 0};
  printer.clear();
  if (pass) {
    if (auto error = pass->error()) return usage_errors({*error});
  }
  results.verdicts = evaluate_gate(cmd.assertions, results, metric_context(results));
  const nlohmann::json doc = to_json(results);
  // A streamed fleet's line as run prints it (scenario time here, the wall's there).
  if (!cmd.quiet)
    std::cout << format_terminal_summary(results) << format_streams_line(doc) << std::flush;
  if (!cmd.out_path.empty()) {
    if (auto error = write_output(cmd.out_path, doc.dump(1) + "\n")) {
      std::cerr << "loadgen: " << *error << "\n";
      return kExitUnreachable;
    }
  }
  if (!cmd.report_path.empty()) {
    if (auto error = write_report(results, cmd.report_path)) {
      std::cerr << "loadgen: " << *error << "\n";
      return kExitUnreachable;
    }
  }
  if (!cmd.junit_path.empty()) {
    if (auto error = write_verdicts_junit(cmd.junit_path, "stampede." + cmd.scenario.name,
                                          results.verdicts)) {
      std::cerr << "loadgen: " << *error << "\n";
      return kExitUnreachable;
    }
  }
  say_refusals(results.verdicts);
  return gate_exit_code(results.verdicts);
}

}  // namespace stampede
