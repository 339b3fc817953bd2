#include "cli/fleet_outputs.hpp"

#include <cstdio>
#include <iostream>

#include "html_report.hpp"
#include "output_path.hpp"
#include "url_redaction.hpp"

namespace stampede {

std::optional<std::string> stop_failure(std::string_view stopped_by, double wall_s,
                                        std::int64_t unfinished) {
  if (stopped_by.empty() || unfinished == 0) return std::nullopt;
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f", wall_s);
  return "stopped by " + std::string(stopped_by) + " after " + wall + " s with " +
         std::to_string(unfinished) + " items unfinished";
}

int verdict_code(const Results& r, std::string_view stopped_by, double wall_s) {
  int code = 0;
  for (const auto& v : r.verdicts) {
    if (!v.passed) code = 1;
  }
  if (auto stop = stop_failure(stopped_by, wall_s, r.recording.unfinished)) {
    std::cerr << "loadgen: " << *stop << "\n";
    code = 1;
  }
  return code;
}

bool write_fleet_outputs(const Results& r, const nlohmann::json& doc, double wall_s,
                         const FleetOutputs& o, const std::vector<JunitCase>& cases,
                         JunitCase run_case) {
  std::vector<std::pair<std::string, std::string>> files = o.files;
  if (!o.out_path.empty()) files.emplace_back(o.out_path, doc.dump(1) + "\n");
  std::vector<std::string> errors;
  for (const auto& [path, text] : files) {
    if (path.empty()) continue;
    if (auto error = write_output(path, text)) errors.push_back(*error);
  }
  if (!o.report_path.empty()) {
    if (auto error = write_report(r, o.report_path)) errors.push_back(*error);
  }
  for (const auto& error : errors) std::cerr << "loadgen: " << error << "\n";
  if (!errors.empty()) run_case = {kRunCase, JunitCase::State::kError, errors.front()};
  if (o.junit_path.empty()) return errors.empty();
  auto all_cases = cases;
  all_cases.push_back(run_case);
  if (auto error = write_output(o.junit_path,
                                format_junit("stampede." + r.scenario.name, all_cases, wall_s))) {
    std::cerr << "loadgen: " << *error << "\n";
    return false;
  }
  return errors.empty();
}

void write_junit_error(const std::string& junit_path, const std::string& scenario_name,
                       const std::string& message) {
  if (junit_path.empty()) return;
  const std::vector<JunitCase> cases{{kRunCase, JunitCase::State::kError, message}};
  if (auto error = write_output(junit_path, format_junit("stampede." + scenario_name, cases, 0)))
    std::cerr << "loadgen: " << *error << "\n";
}

nlohmann::json provider_section(const TargetUrl& admin, const ProviderStats& stats) {
  nlohmann::json section{{"admin", redact_url(admin.text)},
                         {"requests", stats.requests},
                         {"bin_ns", stats.bin_ns},
                         {"time_scale", stats.time_scale}};
  if (!stats.reasons.is_null()) section["reasons"] = stats.reasons;
  return section;
}

}  // namespace stampede
