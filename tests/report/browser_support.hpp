#pragma once

// What the browser tests share: headless Chromium and Firefox, and the checker of their
// screenshots.

#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report_test_support.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

namespace report_test {

// The first of these programs on the PATH; "" if none is.
inline std::string first_program(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto path = support::find_program(name); !path.empty()) return path;
  }
  return "";
}

// Debian's package is `chromium`; the tests skip, saying so, where it is missing.
inline std::string chromium() {
  return first_program({"chromium", "chromium-browser"});
}

inline bool browser_missing() {
  return chromium().empty() || support::find_program("python3").empty();
}

// Debian's package is `firefox-esr`, driven over its own Marionette protocol (no geckodriver).
inline std::string firefox() {
  return first_program({"firefox-esr", "firefox"});
}

inline bool firefox_missing() {
  return firefox().empty() || support::find_program("python3").empty();
}

// tests/report/png_stats.py on a screenshot: its size, distinct colours, and where each of
// `colors` is.
inline nlohmann::json png_stats(const std::string& png, const std::vector<std::string>& colors) {
  std::string args;
  for (const auto& c : colors) args += " " + quote(c);
  const auto stats =
      run("timeout 60 python3 " + quote(support::source_path("tests/report/png_stats.py")) + " " +
          quote(png) + args);
  REQUIRE_MESSAGE(stats.exit_code == 0, stats.output);
  return nlohmann::json::parse(stats.output);
}

}  // namespace report_test
