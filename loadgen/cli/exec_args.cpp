#include "cli/exec_args.hpp"

#include <utility>

#include "cli/trace_input.hpp"
#include "duration.hpp"
#include "gate.hpp"
#include "policy/llm_request_body.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// The provider's view is the record of an exec fleet: its metrics always mean something, its
// per-item record's too.
void take_assertions(const ExecArgs& a, const std::string& scenario_path, ExecCommand& cmd,
                     Errors& errors) {
  const auto& s = cmd.scenario;
  auto planned = metric_context("exec", s.provider, true, true);
  // The provider's own allowance counts: read before the fleet starts, the checks are held to
  // it then (exec_command).
  planned.allowance = true;
  if (auto checks = take(
          gate_assertions(s.expectations, a.output.asserts, false, planned, scenario_path), errors))
    cmd.assertions = *checks;
}

void take_fleet(const ExecArgs& a, ExecCommand& cmd, Errors& errors) {
  cmd.clients = a.clients;
  cmd.per_process = a.per_process;
  if (a.per_process > a.clients)
    errors.push_back("--per-process: " + std::to_string(a.per_process) +
                     " clients per process, but --clients is " + std::to_string(a.clients));
  if (a.command.empty()) {
    errors.push_back("CMD: give the program to run after --");  // CLI11 requires it
  } else {
    cmd.command = a.command.front();
    cmd.args.assign(a.command.begin() + 1, a.command.end());
  }
  cmd.wait_ready = a.wait_ready;
  cmd.logs_dir = a.logs;
  cmd.log_limit_bytes = a.log_limit;
}

void take_target(const ExecArgs& a, ExecCommand& cmd, Errors& errors) {
  if (auto url = take(parse_target_url(a.url), errors)) cmd.url = *url;
  if (auto admin = take(parse_target_url(a.output.provider_admin, "--provider-admin"), errors))
    cmd.provider_admin = *admin;
  cmd.provider_admin_token = a.output.provider_admin_token;
}

// Real clients sleep wall time: only 1 is a scale exec can keep.
void check_time_scale(const std::string& text, Errors& errors) {
  const auto scale = take("--time-scale", parse_time_scale(text), errors);
  if (scale && *scale != 1)
    errors.push_back(
        "--time-scale: exec takes only 1: real clients sleep wall time (a "
        "Retry-After: 2 is two wall seconds at any scale), so a compressed clock "
        "would misread every wait");
}

void take_bounds(const ExecArgs& a, ExecCommand& cmd, Errors& errors) {
  if (auto d = take(positive_duration("--max-duration", a.output.max_duration), errors))
    cmd.max_duration_ns = *d;
  if (!a.timeout.empty()) cmd.timeout_ns = take(positive_duration("--timeout", a.timeout), errors);
  // Between SIGTERM and SIGKILL: a process's own shutdown, not a request's.
  const std::string& grace = a.output.grace.empty() ? "2s" : a.output.grace;
  if (auto g = take("--grace", parse_duration_ns(grace), errors)) cmd.grace_ns = *g;
}

void take_outputs(const ExecArgs& a, ExecCommand& cmd, Errors& errors) {
  take_fleet_outputs(a.output, cmd, errors);
  check_each_output({{"--out", cmd.out_path, true},
                     {"--dead-letter", cmd.dead_letter_path},
                     {"--junit", cmd.junit_path},
                     {report_flag(a.output.report), cmd.report_path}},
                    errors);
}

// The storm (the fleet held and released together) or a trace's arrivals, each one process of
// one client (docs/TRACE.md); the trace read through now, so a bad line is a usage error.
void take_workload(const ExecArgs& a, Scenario& scenario, Errors& errors) {
  const auto workload = scenario.fleet.workload;
  if (workload != WorkloadKind::kStorm && workload != WorkloadKind::kTrace) {
    errors.push_back(
        "--workload: exec runs storm (the fleet released together) or trace (a "
        "process at each arrival), not " +
        std::string(to_string(workload)));
    return;
  }
  if (workload != WorkloadKind::kTrace) return;
  take_trace(scenario, errors);
  if (a.per_process != 1)
    errors.push_back(
        "--per-process: with --workload trace each arrival is one process of one "
        "client; leave --per-process out");
  if (a.wait_ready)
    errors.push_back(
        "--wait-ready: with --workload trace each process starts at its arrival's "
        "time, nothing is held; leave --wait-ready out");
}

}  // namespace

Checked<ExecCommand> check_exec(const Scenario& scenario, const std::string& scenario_path,
                                const ExecArgs& a) {
  Errors errors;
  ExecCommand cmd;
  cmd.scenario = scenario;
  take_workload(a, cmd.scenario, errors);
  // The program makes its own requests: a fleet of LLM requests is loadgen's, run's.
  if (sends_llm_requests(scenario)) {
    const char* field = scenario.fleet.stream ? "fleet.stream" : "fleet.max_tokens";
    errors.push_back(std::string(field) +
                     ": exec's fleet is the program, which makes its own requests (LLM, "
                     "streamed or not); leave " +
                     field + " out of the --scenario file, or send them with loadgen run");
  }
  take_assertions(a, scenario_path, cmd, errors);
  take_fleet(a, cmd, errors);
  take_target(a, cmd, errors);
  check_time_scale(a.time_scale, errors);
  take_bounds(a, cmd, errors);
  take_outputs(a, cmd, errors);
  return checked(std::move(cmd), std::move(errors));
}

}  // namespace stampede
