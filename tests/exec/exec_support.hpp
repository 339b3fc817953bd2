#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.hpp"

// loadgen exec against a real fakeprovider, with real programs as the fleet
// (support::run_exec): what the exec tests check in its results.
namespace exec_test {

// The Debian packages' interpreter, which has python3-requests and python3-tenacity; the
// first python3 in PATH may be another one.
inline const std::string kPython = "/usr/bin/python3";
// A safety net only: every fleet here bounds itself with --max-duration far sooner.
constexpr int kWaitMs = 120'000;

// The provider's arrivals in each second.
inline std::vector<std::int64_t> arrivals_per_second(const nlohmann::json& results) {
  std::vector<std::int64_t> seconds;
  for (const auto& bin : results["histograms"]["provider_arrivals_by_outcome"]["counts"]) {
    std::int64_t n = 0;
    for (const auto& c : bin) n += c.get<std::int64_t>();
    seconds.push_back(n);
  }
  return seconds;
}

// Per second, the send numbers the provider saw, as {second: {send: arrivals}} without zeros.
inline std::map<std::size_t, std::map<std::string, std::int64_t>> sends_per_second(
    const nlohmann::json& results) {
  const auto& h = results["histograms"]["provider_arrivals_by_send"];
  std::map<std::size_t, std::map<std::string, std::int64_t>> seconds;
  for (std::size_t s = 0; s < h["counts"].size(); ++s) {
    for (std::size_t l = 0; l < h["labels"].size(); ++l) {
      const auto n = h["counts"][s][l].get<std::int64_t>();
      if (n > 0) seconds[s][h["labels"][l].get<std::string>()] = n;
    }
  }
  return seconds;
}

inline std::int64_t count(const nlohmann::json& results, const char* key) {
  return results["counts"][key].get<std::int64_t>();
}

// Every client is delivered, dead-lettered or unfinished: none is lost.
inline void check_accounted(const nlohmann::json& results, std::int64_t clients) {
  REQUIRE(results.is_object());
  CHECK(count(results, "items") == clients);
  CHECK(count(results, "delivered") + count(results, "dead_lettered") +
            count(results, "unfinished") ==
        clients);
}

// The fleet's Python is there with its libraries: a missing package fails, not skips.
inline void require_python_packages() {
  const int code =
      support::run_program(kPython, {"-c", "import requests, urllib3, tenacity"}, 30'000).code;
  INFO("python3-requests, python3-urllib3 and python3-tenacity are needed: make deps");
  REQUIRE(code == 0);
}

inline std::string example(const std::string& name) {
  return support::source_path("examples/exec/" + name);
}

}  // namespace exec_test
