#pragma once

// What the report tests share beyond tests/support: shell commands, and the small Python
// checkers beside these tests.

#include <stdio.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "results.hpp"

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/tools.hpp"

namespace report_test {

// Every "--name" in a text. (No <regex> in the tests: GCC 12 warns inside it under the
// sanitizers.)
inline std::set<std::string> flags_in(const std::string& help) {
  std::set<std::string> flags;
  auto lower = [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; };
  auto word_char = [&](char c) {
    return lower(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-';
  };
  for (auto at = help.find("--"); at != std::string::npos; at = help.find("--", at + 2)) {
    auto end = at + 2;
    if (end >= help.size() || !lower(help[end])) continue;
    while (end < help.size() && word_char(help[end])) ++end;
    flags.insert(help.substr(at, end - at));
  }
  return flags;
}

// A results file of tests/report/golden/, read as the report reads one.
inline stampede::Results golden_results(const std::string& name) {
  auto r = stampede::load_results_file(support::source_path("tests/report/golden/" + name));
  REQUIRE_MESSAGE(r, r.error());
  return *r;
}

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct ShellResult {
  int exit_code = -1;
  std::string output;  // stdout, and stderr unless asked not to
};

// Runs a shell command to its end; every command the tests run is bounded by `timeout`.
inline ShellResult run(const std::string& command, bool with_stderr = true) {
  ShellResult p;
  FILE* pipe = popen((command + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (!pipe) return p;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) p.output.append(buf, n);
  const int status = pclose(pipe);
  p.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return p;
}

// check_xhtml.py's findings about a report file, or a JSON null with the parser's message in
// `error` when the file is not well-formed XML.
inline nlohmann::json check_xhtml(const std::string& html_path, std::string* error = nullptr) {
  const auto p =
      run("timeout 60 python3 " + quote(support::source_path("tests/report/check_xhtml.py")) + " " +
          quote(html_path));
  if (p.exit_code != 0) {
    if (error) *error = p.output;
    return nullptr;
  }
  return nlohmann::json::parse(p.output, nullptr, false);
}

// Compares with a checked-in golden file of tests/report/golden/ (the report's, the live
// dashboards' panels). Regenerated only on request:
//   STAMPEDE_UPDATE_GOLDEN=1 build/bin/test_report -tc='*golden*'
inline void check_golden(const std::string& name, const std::string& actual) {
  const auto path = support::source_path("tests/report/golden/" + name);
  const char* update = std::getenv("STAMPEDE_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    support::write_file(path, actual);
    MESSAGE("updated golden file " << path);
    return;
  }
  const auto expected = support::read_file(path);
  if (expected == actual) return;
  const auto kept = (std::filesystem::temp_directory_path() / ("stampede-actual-" + name)).string();
  support::write_file(kept, actual);
  std::size_t line = 1, at = 0;
  while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) {
    if (expected[at] == '\n') ++line;
    ++at;
  }
  auto around = [&](const std::string& s) { return s.substr(at < 60 ? 0 : at - 60, 160); };
  FAIL("the page differs from " << path << " at line " << line << ", byte " << at
                                << "\nexpected: ..." << around(expected) << "...\nactual:   ..."
                                << around(actual) << "...\nthe new report is in " << kept
                                << "\nif the change is intended, regenerate the goldens:\n"
                                   "  STAMPEDE_UPDATE_GOLDEN=1 build/bin/test_report "
                                   "-tc='*golden*'");
}

}  // namespace report_test
