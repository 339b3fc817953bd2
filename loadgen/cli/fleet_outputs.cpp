#include "cli/fleet_outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/usage_errors.hpp"
#include "exit_codes.hpp"
#include "gate.hpp"
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
  say_refusals(r.verdicts);
  int code = gate_exit_code(r.verdicts);
  if (auto stop = stop_failure(stopped_by, wall_s, r.recording.unfinished)) {
    std::cerr << "loadgen: " << *stop << "\n";
    code = std::max(code, kExitFailed);
  }
  return code;
}

namespace {

void say_written(bool quiet, const std::string& what, const std::string& path) {
  if (!quiet) std::cerr << "loadgen: wrote " << what << " to " << path << "\n";
}

// A file, or the document to stdout; the error when it could not be written.
std::optional<std::string> write_one(const std::string& path, const std::string& text) {
  if (path != kStdoutPath) return write_output(path, text);
  std::cout << text << std::flush;
  if (!std::cout) return "--out -: cannot write the results to stdout";
  return std::nullopt;
}

}  // namespace

bool write_fleet_outputs(const Results& r, const nlohmann::json& doc, double wall_s,
                         const FleetOutputs& o, const std::vector<JunitCase>& cases,
                         JunitCase run_case) {
  std::vector<OutputFile> files = o.files;
  if (!o.out_path.empty()) files.push_back({"the results", o.out_path, doc.dump(1) + "\n"});
  std::vector<std::string> errors;
  bool kept = false;
  for (const auto& f : files) {
    if (f.path.empty()) continue;
    if (auto error = write_one(f.path, f.text)) {
      errors.push_back(*error);
      continue;
    }
    say_written(o.quiet, f.what, f.path == kStdoutPath ? "stdout" : f.path);
    kept = true;
  }
  if (!o.report_path.empty()) {
    if (auto error = write_report(r, o.report_path)) {
      errors.push_back(*error);
    } else {
      say_written(o.quiet, "the report", o.report_path);
      kept = true;
    }
  }
  for (const auto& error : errors) std::cerr << "loadgen: " << error << "\n";
  if (!errors.empty()) run_case = {kRunCase, JunitCase::State::kError, errors.front()};
  bool junit_ok = true;
  if (!o.junit_path.empty()) {
    auto all_cases = cases;
    all_cases.push_back(run_case);
    if (auto error = write_output(o.junit_path,
                                  format_junit("stampede." + r.scenario.name, all_cases, wall_s))) {
      std::cerr << "loadgen: " << *error << "\n";
      junit_ok = false;
    } else {
      say_written(o.quiet, "the JUnit XML", o.junit_path);
      kept = true;
    }
  }
  if (!o.quiet && o.out_path.empty()) {
    std::cerr << (kept ? "loadgen: the results document was not kept: give --out FILE to keep it\n"
                       : "loadgen: kept nothing: give --out FILE to keep the results (and the "
                         "report beside it)\n");
  }
  return errors.empty() && junit_ok;
}

void write_junit_error(const std::string& junit_path, const std::string& scenario_name,
                       const std::string& message, bool quiet) {
  if (junit_path.empty()) return;
  const std::vector<JunitCase> cases{{kRunCase, JunitCase::State::kError, message}};
  if (auto error = write_output(junit_path, format_junit("stampede." + scenario_name, cases, 0))) {
    std::cerr << "loadgen: " << *error << "\n";
    return;
  }
  say_written(quiet, "the JUnit XML", junit_path);
}

std::ostream& summary_stream(const std::string& out_path) {
  return out_path == kStdoutPath ? std::cerr : std::cout;
}

ProviderSection provider_section(const TargetUrl& admin, const ProviderStats& stats) {
  ProviderSection section;
  section.admin = redact_url(admin.text);
  section.requests = stats.requests;
  section.bin_ns = stats.bin_ns;
  section.time_scale = stats.time_scale;
  section.reasons = stats.reasons;
  section.upstream = stats.upstream;
  section.models = stats.models;
  section.connections_refused = stats.connections_refused;
  return section;
}

ProviderSection shard_provider_section(const TargetUrl& admin, const ProviderStats& stats) {
  ProviderSection section = provider_section(admin, stats);
  section.arrivals_by_outcome = stats.by_outcome;
  section.arrivals_by_send = stats.by_send;
  return section;
}

}  // namespace stampede
