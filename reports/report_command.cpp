#include "report_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "exit_codes.hpp"
#include "html_report.hpp"
#include "one_line.hpp"
#include "output_path.hpp"
#include "results.hpp"

namespace stampede {
namespace {

int bad_input(const std::string& message) {
  std::cerr << "loadgen report: " << one_line(message) << "\n";
  return kExitUsage;
}

bool all_distinct(const std::vector<std::string>& values) {
  return std::set<std::string>(values.begin(), values.end()).size() == values.size();
}

}  // namespace

std::vector<std::string> input_labels(const std::vector<std::string>& paths,
                                      const std::vector<std::string>& strategies) {
  if (all_distinct(strategies)) return strategies;
  std::vector<std::string> stems;
  for (const auto& p : paths) stems.push_back(std::filesystem::path(p).stem().string());
  return all_distinct(stems) ? stems : paths;
}

int run_report_command(const ReportCommand& cmd) {
  if (cmd.inputs.empty()) return bad_input("give at least one results file (RESULTS.json)");
  if (cmd.out_path.empty())
    return bad_input("-o: give the HTML file to write, e.g. -o report.html");
  if (auto e = check_output_flags({{"-o", cmd.out_path}})) return bad_input(*e);
  if (!cmd.labels.empty() && cmd.labels.size() != cmd.inputs.size()) {
    return bad_input("--label: " + std::to_string(cmd.labels.size()) + " labels for " +
                     std::to_string(cmd.inputs.size()) +
                     " results files; give one per file, in the same order");
  }
  std::vector<Results> runs;
  std::vector<std::string> strategies;
  for (const auto& path : cmd.inputs) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0) {
      return bad_input(
          "results file '" + path +
          "' is empty; write one with 'loadgen simulate --out' or 'loadgen run --out'");
    }
    auto results = load_results_file(path);
    if (!results) return bad_input(results.error());
    strategies.emplace_back(to_string(results->scenario.fleet.strategy));
    runs.push_back(*results);
  }
  const auto labels = cmd.labels.empty() ? input_labels(cmd.inputs, strategies) : cmd.labels;
  if (auto error = write_output(cmd.out_path, render_report(runs, labels))) {
    std::cerr << "loadgen report: " << *error << "\n";
    return kExitUnreachable;
  }
  if (!cmd.quiet) std::cout << "report: " << cmd.out_path << "\n";
  return 0;
}

}  // namespace stampede
