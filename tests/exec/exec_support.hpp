#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "live_harness.hpp"

// loadgen exec against a real fakeprovider, with real programs as the fleet.
namespace exec_test {

inline const std::string kBin = STAMPEDE_BIN_DIR;
inline const std::string kSource = STAMPEDE_SOURCE_DIR;
// The Debian packages' interpreter, which has python3-requests and python3-tenacity; the
// first python3 in PATH may be another one.
inline const std::string kPython = "/usr/bin/python3";
// A safety net only: every fleet here bounds itself with --max-duration far sooner.
constexpr int kWaitMs = 120'000;

struct ExecRun {
  int code = -1;
  std::string out, err;
  nlohmann::json results;  // --out, parsed; null if none
  std::vector<nlohmann::json> dead_letters;
};

// Loopback needs no proxy: a proxy in the environment must not take the fleet's requests.
inline void no_proxy_for_loopback() {
  setenv("no_proxy", "127.0.0.1,localhost", 1);
  setenv("NO_PROXY", "127.0.0.1,localhost", 1);
}

// loadgen exec ARGS -- COMMAND with --out and --dead-letter in dir, to its exit.
inline ExecRun run_exec(const live_test::TempDir& dir, std::vector<std::string> args,
                        const std::vector<std::string>& command) {
  no_proxy_for_loopback();
  const std::string out = dir.file("results.json");
  const std::string dead = dir.file("dead.jsonl");
  args.insert(args.end(), {"--out", out, "--dead-letter", dead, "--no-report", "--quiet", "--"});
  args.insert(args.end(), command.begin(), command.end());
  args.insert(args.begin(), "exec");
  live_test::Process p(kBin + "/loadgen", args, dir, "loadgen");
  ExecRun r;
  r.code = p.wait(kWaitMs);
  r.out = p.out();
  r.err = p.err();
  const std::string text = live_test::read_file(out);
  if (!text.empty()) r.results = nlohmann::json::parse(text, nullptr, false);
  if (!live_test::read_file(dead).empty()) r.dead_letters = live_test::read_json_lines(dead);
  return r;
}

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
  live_test::TempDir dir;
  live_test::Process p(kPython, {"-c", "import requests, urllib3, tenacity"}, dir, "python");
  const int code = p.wait(30'000);
  INFO("python3-requests, python3-urllib3 and python3-tenacity are needed: make deps");
  REQUIRE(code == 0);
}

inline std::string example(const std::string& name) {
  return kSource + "/examples/exec/" + name;
}

}  // namespace exec_test
