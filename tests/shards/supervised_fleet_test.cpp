// One `loadgen run` as a supervisor of worker processes against one real fakeprovider: the
// merged fleet against the simulation and the one-process run, source addresses spread when
// asked, the start given once every worker is ready, a SIGTERM and a killed worker (while
// running and before the start), and the combinations it refuses.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// 600 clients, a storm at t=0 into a fixed-window allowance: exponential backoff without
// jitter sends its retry rounds just after a window opens, whichever process sends them. At
// 200/s: 600, 400 and 200 sends, 1,200 requests drained at t=3 s; at 50/s rounds at 1, 3, 7
// and 15 s, long enough to stop midway.
std::string storm_of_600(int allowance_per_s) {
  return R"({"name": "supervised-storm", "provider": {"allowance": ")" +
         std::to_string(allowance_per_s) +
         R"(/s", "limiter": "fixed-window"}, "fleet": {"clients": 600, "workload": "storm",
         "strategy": "exponential", "base": "1s", "cap": "8s", "max_attempts": 0, "seed": 5}})";
}

std::vector<std::string> target_args(const std::string& scenario, const FakeProvider& p) {
  return {"--scenario", scenario,       "--url", p.url(),          "--provider-admin",
          p.admin(),    "--time-scale", "1",     "--max-duration", "60s"};
}

// A provider and its scenario file in dir.
struct Target {
  Target(const TempDir& dir, int allowance_per_s)
      : scenario((write_file(dir.file("storm.json"), storm_of_600(allowance_per_s)),
                  dir.file("storm.json"))),
        provider({"--scenario", scenario, "--time-scale", "1"}) {}
  std::vector<std::string> args() const { return target_args(scenario, provider); }
  std::string scenario;
  FakeProvider provider;
};

// The supervisor's workers, as /proc lists its children.
std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> out;
  for (pid_t child; in >> child;) out.push_back(child);
  return out;
}

// The supervisor's first worker once it runs loadgen (its exec done), caught at once: it has
// yet to probe the target, ask the provider's scale and open its connections, so it is not
// ready. -1 if none came.
pid_t first_worker(pid_t supervisor) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < end) {
    for (const pid_t child : children_of(supervisor)) {
      if (read_file("/proc/" + std::to_string(child) + "/cmdline").find("fleet-worker") !=
          std::string::npos)
        return child;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return -1;
}

// The storm run by a supervisor of three workers, started; the test stops it its way. At 50/s
// it runs long enough to stop midway.
struct LongFleet {
  LongFleet(const TempDir& dir, std::vector<std::string> more, int allowance_per_s = 50)
      : target(dir, allowance_per_s),
        fleet(kLoadgenBin, arguments(dir, std::move(more)), dir, "fleet") {}
  std::vector<std::string> arguments(const TempDir& dir, std::vector<std::string> more) const {
    more.insert(more.begin(), {"run", "--quiet", "--processes", "3", "--out", dir.file("r.json")});
    return with(more, target.args());
  }
  // Its first worker, caught before it is ready and sent sig: its pid; -1 if none came.
  pid_t signal_unready_worker(int sig) const {
    const pid_t pid = target.provider.started() ? first_worker(fleet.pid()) : -1;
    if (pid > 0) kill(pid, sig);
    return pid;
  }
  // Once the provider has seen requests: the fleet is sending.
  bool sending() const {
    return target.provider.started() && wait_until(
                                            [&] {
                                              const auto s = target.provider.stats();
                                              return s.is_object() &&
                                                     s["requests"].get<std::int64_t>() > 0;
                                            },
                                            60'000);
  }
  Target target;
  Process fleet;
};

}  // namespace

TEST_CASE(
    "acceptance: one run in three worker processes is the simulation and the one-process fleet" *
    doctest::test_suite("alone")) {
  TempDir dir;
  const Target target(dir, 200);
  REQUIRE(target.provider.started());
  const auto args = target.args();

  const Run one = run_loadgen(with(args, {"--processes", "1"}));
  INFO(one.err);
  REQUIRE(one.code == 0);
  const Run fleet = run_loadgen(with(args, {"--processes", "3"}));
  INFO(fleet.err);
  REQUIRE(fleet.code == 0);
  const json& j = fleet.results;

  // The merged document, as `loadgen merge` writes it for three shards.
  CHECK(j["merged"]["shards"] == 3);
  CHECK(j["merged"]["missing"].empty());
  CHECK_FALSE(j.contains("shard"));
  CHECK(j["live"]["loops"].get<int>() >= 3);
  // Equal to the simulation of the same seed, and to the one-process run's counts.
  if (kTimingExact) {
    CHECK(j["comparison"]["difference"]["requests"] == 0);
    CHECK(j["comparison"]["difference"]["delivered"] == 0);
    CHECK(j["counts"]["requests"] == 1200);
    CHECK(j["counts"]["requests"] == one.results["counts"]["requests"]);
  }
  CHECK(j["counts"]["delivered"] == 600);
  CHECK(j["counts"]["delivered"] == one.results["counts"]["delivered"]);
  CHECK(j["counts"]["unfinished"] == 0);
  // The provider's view, read once the last worker ended: the whole fleet.
  CHECK(j["histograms"]["provider_side"] == true);
  CHECK(j["provider"]["requests"] == j["counts"]["requests"]);
  // Every process's memory: the three workers and the supervisor.
  const auto& processes = j["live"]["processes"];
  REQUIRE(processes.size() == 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(processes[i]["role"] == "run");
    CHECK(processes[i]["shard"] == i);
    CHECK(processes[i]["max_rss_kib"].get<std::int64_t>() > 0);
  }
  CHECK(processes[3]["role"] == "supervisor");
  REQUIRE(one.results["live"]["processes"].size() == 1);
  // The per-process files, merged: every attempt of every worker.
  CHECK(fleet.attempts.size() == j["counts"]["requests"].get<std::size_t>());
  CHECK(fleet.dead_letters.empty());
}

TEST_CASE("a fleet past --connections-per-source binds further loopback source addresses" *
          doctest::test_suite("alone")) {
  TempDir dir;
  const Target target(dir, 200);
  REQUIRE(target.provider.started());
  const auto args = target.args();
  for (const char* processes : {"1", "3"}) {
    CAPTURE(processes);
    const Run r =
        run_loadgen(with(args, {"--processes", processes, "--connections-per-source", "250"}));
    INFO(r.err);
    REQUIRE(r.code == 0);
    // As the kernel bound them (getsockname): 250, 250 and the last 100, across the workers.
    CHECK(r.results["live"]["source_addresses"] ==
          json{{"127.0.0.1", 250}, {"127.0.0.2", 250}, {"127.0.0.3", 100}});
    if (kTimingExact) {
      CHECK(r.results["counts"]["requests"] == 1200);
      CHECK(r.results["comparison"]["difference"]["requests"] == 0);
    }
    CHECK(r.results["counts"]["delivered"] == 600);
    CHECK(r.results["counts"]["unfinished"] == 0);
    CHECK(r.results["provider"]["requests"] == r.results["counts"]["requests"]);
  }
  // Unspread, nothing is bound and nothing is said.
  const Run plain = run_loadgen(with(args, {"--processes", "3"}));
  REQUIRE(plain.code == 0);
  CHECK_FALSE(plain.results["live"].contains("source_addresses"));
}

TEST_CASE("SIGTERM to the supervisor stops every worker and still merges their results") {
  TempDir dir;
  LongFleet run(dir, {"--dead-letter", dir.file("dead.jsonl")});
  REQUIRE(run.sending());
  Process& fleet = run.fleet;
  fleet.signal(SIGTERM);
  CHECK(fleet.wait() == 1);  // stopped with items unfinished, as one process would say
  INFO(fleet.err());
  const json j = json::parse(read_file(dir.file("r.json")));
  CHECK(j["live"]["stopped"] == "signal");
  CHECK(j["merged"]["merged"] == 3);
  CHECK(j["merged"]["missing"].empty());
  const std::int64_t unfinished = j["counts"]["unfinished"];
  CHECK(unfinished > 0);
  CHECK(j["counts"]["items"] == 600);
  // Every worker's unfinished items, in the one dead-letter file.
  CHECK(static_cast<std::int64_t>(read_json_lines(dir.file("dead.jsonl")).size()) ==
        unfinished + j["counts"]["dead_lettered"].get<std::int64_t>());
  CHECK(fleet.err().find("stopped by a signal") != std::string::npos);
}

TEST_CASE("a worker that dies fails the fleet, named, with what the others sent merged") {
  TempDir dir;
  LongFleet run(dir, {"--junit", dir.file("junit.xml"), "--assert", "requests > 0"});
  REQUIRE(run.sending());
  Process& fleet = run.fleet;
  const auto workers = children_of(fleet.pid());
  REQUIRE(workers.size() == 3);
  kill(workers[1], SIGKILL);
  CHECK(fleet.wait() == 3);  // a harness failure, whatever the assertions say
  INFO(fleet.err());
  CHECK(fleet.err().find("pid " + std::to_string(workers[1]) + ") ended with SIGKILL") !=
        std::string::npos);
  CHECK(fleet.err().find("stopping the other workers") != std::string::npos);
  const json j = json::parse(read_file(dir.file("r.json")));
  CHECK(j["merged"]["merged"] == 2);
  CHECK(j["merged"]["missing"].size() == 1);
  CHECK(read_file(dir.file("junit.xml")).find("<error") != std::string::npos);
}

// A worker held back before it is ready (as a loaded machine holds one opening its
// connections) twice as long as the fixed lead the supervisor once guessed (3 s here), which
// started the others without it and it 3 s late.
constexpr auto kHeldBack = std::chrono::seconds(6);

TEST_CASE("a worker ready late: the fleet starts once every worker is ready, none of them late") {
  TempDir dir;
  LongFleet run(dir, {}, 200);
  const pid_t held = run.signal_unready_worker(SIGSTOP);  // the fleet waits for it
  REQUIRE(held > 0);
  std::this_thread::sleep_for(kHeldBack);
  // Nobody started without it.
  CHECK(run.target.provider.stats()["requests"] == 0);
  kill(held, SIGCONT);
  CHECK(run.fleet.wait() == 0);
  INFO(run.fleet.err());
  const json j = json::parse(read_file(dir.file("r.json")));
  // Every worker on time: the start came after the held one opened its connections.
  const auto& late = j["merged"]["start_late_s"];
  REQUIRE(late.size() == 3);
  for (const auto& s : late) CHECK(s.get<double>() < 0.25 * kHeldBack.count());
  // One t=0 for the provider and every worker: the simulation, request for request.
  if (kTimingExact) {
    CHECK(j["counts"]["requests"] == 1200);
    CHECK(j["comparison"]["difference"]["requests"] == 0);
    CHECK(j["comparison"]["difference"]["delivered"] == 0);
  }
  CHECK(j["counts"]["delivered"] == 600);
  CHECK(j["provider"]["requests"] == j["counts"]["requests"]);
}

TEST_CASE("a worker killed before it is ready fails the fleet, named, before anyone sent") {
  TempDir dir;
  LongFleet run(dir, {"--junit", dir.file("junit.xml")});
  const pid_t killed = run.signal_unready_worker(SIGKILL);
  REQUIRE(killed > 0);
  CHECK(run.fleet.wait() == 3);  // the others were not left waiting for it
  INFO(run.fleet.err());
  CHECK(run.fleet.err().find("pid " + std::to_string(killed) + ") ended with SIGKILL") !=
        std::string::npos);
  CHECK(run.fleet.err().find("stopping the other workers") != std::string::npos);
  // The others stopped unstarted: their results, every item unfinished, and nothing sent.
  const json j = json::parse(read_file(dir.file("r.json")));
  CHECK(j["merged"]["merged"] == 2);
  CHECK(j["merged"]["missing"].size() == 1);
  CHECK(j["counts"]["requests"] == 0);
  CHECK(run.target.provider.stats()["requests"] == 0);
  CHECK(read_file(dir.file("junit.xml")).find("<error") != std::string::npos);
}

TEST_CASE("SIGTERM while the workers open their connections stops them all unstarted") {
  TempDir dir;
  LongFleet run(dir, {"--dead-letter", dir.file("dead.jsonl")});
  const pid_t held = run.signal_unready_worker(SIGSTOP);  // the fleet waits for it
  REQUIRE(held > 0);
  run.fleet.signal(SIGTERM);
  kill(held, SIGCONT);
  CHECK(run.fleet.wait() == 1);  // stopped by a signal, as a run stopped later is
  INFO(run.fleet.err());
  const json j = json::parse(read_file(dir.file("r.json")));
  CHECK(j["live"]["stopped"] == "signal");
  CHECK(j["merged"]["merged"] == 3);
  CHECK(j["counts"]["requests"] == 0);
  CHECK(j["counts"]["unfinished"] == 600);
  CHECK(read_json_lines(dir.file("dead.jsonl")).size() == 600);
  CHECK(run.target.provider.stats()["requests"] == 0);
}

TEST_CASE("the combinations a supervisor refuses: one line, exit 2, before any load") {
  TempDir dir;
  const Target target(dir, 200);
  REQUIRE(target.provider.started());
  const auto args = target.args();
  for (const auto& [more, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--processes", "3", "--shard", "0/2"}, "--processes 3: not with --shard"},
           {{"--processes", "3", "--dashboard", "127.0.0.1:0"}, "--dashboard: the fleet runs in 3"},
           {{"--processes", "601"}, "more processes than the 600 clients"},
           {{"--processes", "0"}, "--processes"},
       }) {
    const Run r = run_loadgen(with(args, more));
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(says) != std::string::npos);
  }
  CHECK(target.provider.stats()["requests"] == 0);
}
