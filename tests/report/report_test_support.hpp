#pragma once

// What the report tests share beyond tests/support: shell commands, and the small Python
// checkers beside these tests.

#include <stdio.h>
#include <sys/wait.h>

#include <string>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "results.hpp"

#include "support/process.hpp"
#include "support/tools.hpp"

namespace report_test {

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

}  // namespace report_test
