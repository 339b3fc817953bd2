// SIGINT and SIGTERM at many moments of a live run, for loadgen and for fakeprovider: before
// t=0 (probe and connect phase), mid-storm, around the end and the final writes. Whatever the
// moment, every output file that exists is whole (it parses) and no temporary file is left.
// The moments are a sweep of delays after the start, so some land in each phase, and one more
// at the provider's first arrival, mid-storm however slow the machine (under a sanitizer
// beside other cases the whole sweep can land before loadgen takes its signals); none of
// them is a threshold: every one must pass.
#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "results.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

const std::string kWritesScale = "0.05";
// The storm below takes about a second of wall time: the first moments land in the probe and
// the connect phase, the last ones around its end and its final writes.
const std::vector<int> kDelaysMs = {0, 10, 30, 60, 120, 400, 850, 1000, 1300};
constexpr int kAtFirstArrival = -1;  // a moment of the sweep: once the provider saw a request

// SIGTERM and SIGINT by turns.
int signal_for(std::size_t moment) {
  return moment % 2 ? SIGINT : SIGTERM;
}

bool exists(const std::string& path) {
  return std::filesystem::exists(path);
}

void check_no_temporary_files(const TempDir& dir, const std::string& any_file) {
  const auto folder = std::filesystem::path(dir.file(any_file)).parent_path();
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    CHECK_MESSAGE(entry.path().string().find(".tmp") == std::string::npos, entry.path().string());
  }
}

void check_json_lines(const std::string& path) {
  if (!exists(path)) return;
  const std::string text = read_file(path);
  CHECK((text.empty() || text.back() == '\n'));
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    CHECK_MESSAGE(json::accept(line), std::string(path + ": " + line));
  }
}

void check_ends_with(const std::string& path, const std::string& tail) {
  if (!exists(path)) return;
  const std::string text = read_file(path);
  CHECK_MESSAGE(text.size() >= tail.size(), std::string(path));
  if (text.size() >= tail.size()) CHECK(text.substr(text.size() - tail.size()) == tail);
}

// Every loadgen output that exists is whole.
void check_loadgen_outputs(const TempDir& dir) {
  if (exists(dir.file("r.json"))) {
    const auto results = stampede::load_results_file(dir.file("r.json"));
    CHECK_MESSAGE(results, results.error());
  }
  check_json_lines(dir.file("dead.jsonl"));
  check_json_lines(dir.file("attempts.jsonl"));
  check_ends_with(dir.file("junit.xml"), "</testsuites>\n");
  check_ends_with(dir.file("r.html"), "</html>\n");
  check_no_temporary_files(dir, "r.json");
}

// A storm that ends by itself: 300 clients against 20/s (at --time-scale 0.05, about a wall
// second), full jitter, six retries at most, so some items are dead-lettered.
std::vector<std::string> loadgen_args(const FakeProvider& p, const TempDir& dir) {
  std::vector<std::string> args{"run",        "--quiet",           "--url", p.url(), "--time-scale",
                                kWritesScale, "--allow-time-scale"};
  const std::vector<std::string> storm{"--clients",      "300", "--strategy", "full-jitter",
                                       "--base",         "1s",  "--cap",      "8s",
                                       "--max-attempts", "6",   "--assert",   "delivered >= 0"};
  args.insert(args.end(), storm.begin(), storm.end());
  for (const auto& [flag, name] : {std::pair{"--out", "r.json"},
                                   {"--dead-letter", "dead.jsonl"},
                                   {"--attempts-out", "attempts.jsonl"},
                                   {"--junit", "junit.xml"},
                                   {"--report", "r.html"}}) {
    args.push_back(flag);
    args.push_back(dir.file(name));
  }
  return args;
}

}  // namespace

TEST_CASE("loadgen stopped by a signal at any moment leaves only whole files") {
  std::map<int, int> codes;
  auto moments = kDelaysMs;
  moments.push_back(kAtFirstArrival);
  for (std::size_t moment = 0; moment < moments.size(); ++moment) {
    const int sig = signal_for(moment);
    const int delay_ms = moments[moment];
    CAPTURE(sig);
    CAPTURE(delay_ms);
    FakeProvider p({"--allowance", "20/s", "--time-scale", kWritesScale});
    REQUIRE(p.started());
    TempDir dir;
    Process run(bin_path("loadgen"), loadgen_args(p, dir), dir, "loadgen");
    if (delay_ms == kAtFirstArrival) {
      REQUIRE(wait_until(
          [&] {
            const auto s = p.stats();
            return s.is_object() && s["requests"].get<std::int64_t>() > 0;
          },
          60'000));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    }
    run.signal(sig);
    const int code = run.wait(60'000);
    INFO(run.err());
    // Killed before it took charge of signals, stopped with items unfinished (1), or
    // finished before the signal came (0).
    CHECK((code == 0 || code == 1 || code == 128 + sig));
    if (code == 0 || code == 1) CHECK(exists(dir.file("r.json")));
    check_loadgen_outputs(dir);
    ++codes[code];
  }
  MESSAGE("exit codes by count: 0 x" << codes[0] << ", 1 x" << codes[1] << ", killed x"
                                     << codes[128 + SIGTERM] + codes[128 + SIGINT]);
  // The sweep must have caught runs mid-storm, or it tested nothing but the ends.
  CHECK(codes[1] > 0);
}

TEST_CASE("a second signal aborts in-flight requests and still leaves whole files") {
  // Answers held 20 scenario seconds (one wall second): requests are in flight at the signals.
  FakeProvider p({"--latency", "20s", "--time-scale", kWritesScale});
  REQUIRE(p.started());
  TempDir dir;
  Process run(bin_path("loadgen"), loadgen_args(p, dir), dir, "loadgen");
  REQUIRE(wait_until(
      [&] {
        const auto s = p.stats();
        return s.is_object() && s["requests"].get<std::int64_t>() >= 300;
      },
      20'000));
  run.signal(SIGINT);
  run.signal(SIGTERM);
  CHECK(run.wait(60'000) == 1);
  INFO(run.err());
  check_loadgen_outputs(dir);
  const auto results = stampede::load_results_file(dir.file("r.json"));
  REQUIRE(results);
  CHECK(results->recording.unfinished == 300);
  CHECK(read_json_lines(dir.file("dead.jsonl")).size() == 300);
}

TEST_CASE("fakeprovider stopped at any moment of a storm leaves whole arrival and stats files") {
  for (std::size_t moment = 0; moment < kDelaysMs.size(); ++moment) {
    const int sig = signal_for(moment);
    const int delay_ms = kDelaysMs[moment];
    CAPTURE(sig);
    CAPTURE(delay_ms);
    TempDir dir;
    FakeProvider p({"--allowance", "20/s", "--time-scale", kWritesScale, "--arrivals-out",
                    dir.file("arrivals.csv"), "--stats-out", dir.file("stats.json")});
    REQUIRE(p.started());
    Process run(bin_path("loadgen"), loadgen_args(p, dir), dir, "loadgen");
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    p.process().signal(sig);
    p.process().signal(sig);  // again, during its shutdown or its writes
    CHECK(p.process().wait(30'000) == 0);
    run.wait(60'000);
    REQUIRE(exists(dir.file("stats.json")));
    const json stats = json::parse(read_file(dir.file("stats.json")), nullptr, false);
    CHECK(stats.is_object());
    const std::string csv = read_file(dir.file("arrivals.csv"));
    REQUIRE(
        csv.rfind("t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,stream\n",
                  0) == 0);
    std::istringstream rows(csv);
    std::int64_t n = -1;
    for (std::string row; std::getline(rows, row); ++n) {
      CHECK(std::count(row.begin(), row.end(), ',') == 8);
    }
    if (stats.is_object()) CHECK(stats["requests"].get<std::int64_t>() == n);
    check_no_temporary_files(dir, "stats.json");
  }
}
