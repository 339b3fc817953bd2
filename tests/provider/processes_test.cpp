// fakeprovider --processes: the data plane served by forked workers on one port, every request
// decided by the process that forked them. Against the real binary and the real loadgen.
#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"

using namespace support;
using nlohmann::json;

namespace {

// 1000 clients send at t=0 into an allowance of 100 a minute, and the 900 refused send once
// more a second or two later: exactly 100 admitted and 1800 refused, whichever process each
// connection landed on, and every connection held although no process may hold more than 400.
std::vector<std::string> burst_fleet(const FakeProvider& p) {
  return {"--url",          p.url(), "--provider-admin", p.admin(),     "--time-scale",   "1",
          "--clients",      "1000",  "--strategy",       "exponential", "--max-attempts", "1",
          "--max-duration", "30s"};
}

const std::vector<std::string> kBurstProvider{"--allowance",  "100/min",           "--limiter",
                                              "fixed-window", "--max-connections", "400"};

// The children of pid (its workers), from /proc.
std::vector<int> children_of(int pid) {
  std::vector<int> out;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream in(task.path() / "children");
    int child = 0;
    while (in >> child) out.push_back(child);
  }
  return out;
}

bool alive(int pid) {
  return std::filesystem::exists("/proc/" + std::to_string(pid));
}

std::int64_t total(const json& stats, const char* outcome) {
  return stats["totals"][outcome].get<std::int64_t>();
}

}  // namespace

TEST_CASE(
    "--processes 3: a burst past one process's connections is held, decided as one "
    "provider decides it, and recorded once") {
  RecordingProvider p(with(kBurstProvider, {"--processes", "3"}));
  REQUIRE(p.started());
  const auto workers = children_of(p.pid());
  CHECK(workers.size() == 3);
  const auto r = run_loadgen(burst_fleet(p));
  INFO(r.err);
  REQUIRE(r.results.is_object());
  const json stats = p.stats();
  CHECK(stats["requests"] == 1900);
  CHECK(total(stats, "ok") == 100);
  CHECK(total(stats, "429") == 1800);
  CHECK(r.results["provider"]["requests"] == 1900);
  CHECK(p.stop() == 0);
  for (const int w : workers) CHECK_FALSE(alive(w));
  // One record: the arrival log holds every arrival once, from every worker.
  const std::string log = read_file(p.arrivals_path());
  CHECK(std::count(log.begin(), log.end(), '\n') == 1901);  // and its header
  const json final_stats = json::parse(read_file(p.stats_path()));
  CHECK(final_stats["requests"] == 1900);
  CHECK(total(final_stats, "ok") == 100);
}

TEST_CASE("--processes 1 with the same limit cannot hold that burst: the case above can fail") {
  FakeProvider p(kBurstProvider);
  REQUIRE(p.started());
  const auto r = run_loadgen(burst_fleet(p));
  REQUIRE(r.results.is_object());
  CHECK(p.stats()["requests"].get<std::int64_t>() < 1900);
}

TEST_CASE("--processes 2: the connections every worker turned away are counted in the stats") {
  FakeProvider p({"--processes", "2", "--max-connections", "50"});
  REQUIRE(p.started());
  // 200 clients hold their connections open; the two workers hold 100 between them.
  const auto r = run_loadgen({"--url", p.url(), "--provider-admin", p.admin(), "--clients", "200",
                              "--max-attempts", "1", "--expect-none", "--max-duration", "30s"});
  INFO(r.err);
  const json stats = p.stats();
  REQUIRE(stats.contains("connections_refused"));
  CHECK(stats["connections_refused"].get<std::int64_t>() >= 100);
  CHECK(r.results["provider"]["connections_refused"] == stats["connections_refused"]);
  // A reset counts from zero again.
  REQUIRE(http(p.admin_port(), "POST", "/admin/reset").status == 200);
  CHECK(p.stats()["connections_refused"] == 0);
}

TEST_CASE("--processes: a worker that dies stops the provider with a line naming it") {
  FakeProvider p({"--processes", "2"});
  REQUIRE(p.started());
  const auto workers = children_of(p.pid());
  REQUIRE(workers.size() == 2);
  kill(workers[1], SIGKILL);
  const int code = p.process().wait();
  CHECK(code == 1);
  CHECK(p.err().find("a data-plane worker ended before the provider was stopped") !=
        std::string::npos);
  CHECK(p.err().find("was killed by") != std::string::npos);
  CHECK_FALSE(alive(workers[0]));
}

TEST_CASE("--processes out of range is refused before anything is served") {
  for (const std::string n : {"0", "65", "x"}) {
    CAPTURE(n);
    const auto e = run_provider_to_exit({"--processes", n});
    CHECK(e.code == 2);
    CHECK(e.err.find("--processes") != std::string::npos);
  }
}
