#include "cli/fleet_outputs.hpp"

#include <iostream>

#include "cli/junit_writer.hpp"
#include "html_report.hpp"
#include "output_path.hpp"

namespace stampede {

int verdict_code(const Results& r, std::string_view stopped_by) {
  int code = 0;
  for (const auto& v : r.verdicts) {
    if (!v.passed) code = 1;
  }
  if (!stopped_by.empty() && r.recording.unfinished > 0) {
    std::cerr << "loadgen: stopped by " << stopped_by << " with " << r.recording.unfinished
              << " items unfinished\n";
    code = 1;
  }
  return code;
}

bool write_fleet_outputs(const Results& r, const nlohmann::json& doc, double wall_s,
                         const FleetOutputs& o) {
  std::vector<std::pair<std::string, std::string>> files = o.files;
  if (!o.out_path.empty()) files.emplace_back(o.out_path, doc.dump(1) + "\n");
  if (!o.junit_path.empty())
    files.emplace_back(o.junit_path,
                       format_junit("stampede." + r.scenario.name, r.verdicts, wall_s));
  bool ok = true;
  for (const auto& [path, text] : files) {
    if (path.empty()) continue;
    if (auto error = write_output(path, text)) {
      std::cerr << "loadgen: " << *error << "\n";
      ok = false;
    }
  }
  if (!o.report_path.empty()) {
    if (auto error = write_report(r, o.report_path)) {
      std::cerr << "loadgen: " << *error << "\n";
      ok = false;
    }
  }
  return ok;
}

nlohmann::json provider_section(const TargetUrl& admin, const ProviderStats& stats) {
  nlohmann::json section{{"admin", admin.text},
                         {"requests", stats.requests},
                         {"bin_ns", stats.bin_ns},
                         {"time_scale", stats.time_scale}};
  if (!stats.reasons.is_null()) section["reasons"] = stats.reasons;
  return section;
}

}  // namespace stampede
