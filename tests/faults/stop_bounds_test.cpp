// The bounds on how long a run takes to stop (issue 14, item 7): --grace is at most what a
// request can be in flight (--timeout on the wall), and a signal after --max-duration has
// stopped the run ends it at once, its files written.
#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "results.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

// The run's usage error, or nothing: every one comes before the run starts, so the URL
// needs no server behind it.
std::string usage_error(const std::vector<std::string>& flags) {
  std::vector<std::string> args{"--url", "http://127.0.0.1:" + std::to_string(unused_port()) + "/",
                                "--clients", "1"};
  args.insert(args.end(), flags.begin(), flags.end());
  const auto r = run_loadgen(args);
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  return r.err;
}

}  // namespace

TEST_CASE("loadgen: a --grace longer than a request can be in flight exits 2 naming both") {
  CHECK(usage_error({"--grace", "82s"})
            .rfind(
                "loadgen: --grace: '82s' is longer than a request can be in flight (--timeout, 30s "
                "on the wall)",
                0) == 0);
  // --timeout is scenario time: at --time-scale 0.1, 10s is a wall second.
  CHECK(usage_error(
            {"--grace", "2s", "--timeout", "10s", "--time-scale", "0.1", "--allow-time-scale"})
            .find("(--timeout, 1s on the wall)") != std::string::npos);
  CHECK(usage_error({"--grace", "soon"}).rfind("loadgen: --grace: ", 0) == 0);
}

TEST_CASE("loadgen: the default --grace is the timeout where that is shorter, not an error") {
  FakeProvider p({"--time-scale", "0.1"});
  REQUIRE(p.started());
  const auto r =
      run_loadgen({"--url", p.url(), "--provider-admin", p.admin(), "--clients", "2", "--timeout",
                   "10s", "--time-scale", "0.1", "--assert", "delivered == 2"});
  INFO(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("loadgen: a signal after --max-duration stopped the run ends it at once, files written") {
  // Answers held ten minutes, a grace of ten minutes: only the signal can end this run soon.
  FakeProvider p({"--latency", "600s"});
  REQUIRE(p.started());
  TempDir dir;
  Process run(bin_path("loadgen"),
              {"run", "--quiet", "--url", p.url(), "--clients", "2", "--max-duration", "300ms",
               "--grace", "10m", "--timeout", "20m", "--assert", "delivered >= 0", "--out",
               dir.file("r.json"), "--dead-letter", dir.file("dead.jsonl")},
              dir, "loadgen");
  // Both first sends in flight (t=0 has passed), then well past --max-duration.
  REQUIRE(wait_until(
      [&] {
        const auto s = p.stats();
        return s.is_object() && s["requests"].get<std::int64_t>() >= 2;
      },
      20'000));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  run.signal(SIGTERM);
  // A safety bound far below the grace: a run that honoured the grace again would be killed.
  CHECK(run.wait(60'000) == 1);
  const std::string err = run.err();
  INFO(err);
  CHECK(err.find("Terminated: starting no more attempts; aborting in-flight requests") !=
        std::string::npos);
  const auto results = stampede::load_results_file(dir.file("r.json"));
  REQUIRE(results);
  CHECK(results->recording.unfinished == 2);
  CHECK(read_json_lines(dir.file("dead.jsonl")).size() == 2);
  const auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
  CHECK(j.dump().find("\"stopped\":\"max_duration\"") != std::string::npos);
}
