#include "cli/fleet_command.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <iostream>

#include "cli/provider_settings.hpp"
#include "exit_codes.hpp"
#include "one_line.hpp"

namespace stampede {

int refuse(const FleetCommand& cmd, int code, const std::string& message) {
  std::cerr << "loadgen: " << one_line(message) << "\n";
  write_junit_error(cmd.junit_path, cmd.scenario.name, message, cmd.quiet);
  return code;
}

std::optional<int> adopt_enforced_provider(
    FleetCommand& cmd, const ProviderAdmin& admin, const TargetUrl& url,
    const std::function<MetricContext(const ProviderConfig&)>& context_of) {
  const auto enforced = read_enforced_provider(admin, cmd.scenario, url);
  if (!enforced.provider) return refuse(cmd, enforced.code, enforced.error);
  cmd.scenario.provider = *enforced.provider;
  cmd.provider_settings = enforced.settings;
  const auto context = context_of(cmd.scenario.provider);
  for (const auto& a : cmd.assertions) {
    if (auto e = meaning_error(a, context)) return refuse(cmd, kExitUsage, *e);
  }
  return std::nullopt;
}

std::string stopped_by(FleetStopCause cause, std::string_view bound) {
  switch (cause) {
    case FleetStopCause::kNone:
      return "";
    case FleetStopCause::kSignal:
      return "a signal";
    case FleetStopCause::kBound:
      break;
  }
  return std::string(bound);
}

FleetJudgment judge_fleet(int checks_code, const std::optional<std::string>& stop,
                          const std::optional<FleetError>& error) {
  FleetJudgment j;
  j.code = checks_code;
  if (stop) {
    j.run_case = {kRunCase, JunitCase::State::kFailed, *stop};
    j.code = std::max(j.code, kExitFailed);
  }
  if (error) {
    j.run_case = {kRunCase, JunitCase::State::kError, error->why};
    j.code = std::max(j.code, error->code);
  }
  return j;
}

namespace {

int run_steps(const FleetCommand& cmd, FleetVariant& variant) {
  if (auto code = variant.preflight()) return *code;
  if (auto code = variant.start()) return *code;
  if (auto code = variant.drive()) return *code;
  const FleetEnd end = variant.results();
  const FleetOutputs outputs{cmd.out_path, cmd.junit_path, cmd.report_path, end.files, cmd.quiet};
  if (!write_fleet_outputs(end.results, end.doc, end.wall_s, outputs,
                           junit_cases(end.results.verdicts), end.judgment.run_case))
    return kExitUnreachable;
  return end.judgment.code;
}

}  // namespace

int run_fleet_command(const FleetCommand& cmd,
                      const std::function<std::unique_ptr<FleetVariant>()>& make_variant) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int code = kExitUnreachable;
  try {
    code = run_steps(cmd, *make_variant());
  } catch (const std::exception& e) {
    code = refuse(cmd, kExitUnreachable, std::string("harness failure: ") + e.what());
  }
  curl_global_cleanup();
  return code;
}

}  // namespace stampede
