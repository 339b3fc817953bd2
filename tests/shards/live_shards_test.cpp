// Sharded live runs against one real fakeprovider: three loadgen shards started together with
// --start-at, merged, against the one-process run of the same seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/redis.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// 300 clients, a storm at t=0 into 100 a second in fixed windows. Exponential backoff without
// jitter sends every retry round at one moment just after a window opens (t=1 s, 3 s): 300,
// 200 and 100 sends, 600 requests, drained at t=3 s. A harness late by less than most of a
// window does not change that count (full jitter's would move with every late send). At
// --time-scale 1 a window is a wall second: at 0.1 it is 100 ms, and on this loaded machine
// the one-process burst of 300 first sends spilled past it (509 requests instead of 600).
const std::string kScenario = R"({
  "name": "shard-storm",
  "provider": {"allowance": "100/s", "limiter": "fixed-window"},
  "fleet": {"clients": 300, "workload": "storm", "strategy": "exponential", "base": "1s",
            "cap": "8s", "max_attempts": 0, "seed": 3}
})";

std::vector<std::string> fleet_args(const std::string& scenario, const FakeProvider& p) {
  return {"--scenario", scenario,       "--url", p.url(),          "--provider-admin",
          p.admin(),    "--time-scale", "1",     "--max-duration", "30s"};
}

std::string epoch_seconds_from_now(double seconds) {
  const auto now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", now + seconds);
  return buf;
}

// The provider's admissions in each second (label 0: ok).
std::vector<std::int64_t> admitted_per_second(const json& results) {
  std::vector<std::int64_t> out;
  for (const auto& bin : results["histograms"]["provider_arrivals_by_outcome"]["counts"])
    out.push_back(bin[0].get<std::int64_t>());
  return out;
}

std::int64_t most_admitted_in_a_second(const json& results) {
  const auto bins = admitted_per_second(results);
  return bins.empty() ? 0 : *std::max_element(bins.begin(), bins.end());
}

// Shard i of n runs against providers[i % providers.size()], all starting together; returns
// the merged results (written to merged.json in dir).
json run_shards_and_merge(const std::string& scenario, const TempDir& dir, int n,
                          const std::vector<const FakeProvider*>& providers) {
  // Time for every shard to start and open its connections before the shared start: a shard 0
  // still setting up at --start-at resets the provider after the others' first sends (1.5 s
  // was too little for four ASan shards on a loaded 2-core machine: shards 0.5 s late, 400
  // requests instead of 600).
  const std::string start_at = epoch_seconds_from_now(5);
  std::vector<std::unique_ptr<Process>> shards;
  std::vector<std::string> merge{"merge", "--quiet", "-o", dir.file("merged.json")};
  for (int i = 0; i < n; ++i) {
    const auto out = dir.file("shard-" + std::to_string(i) + ".json");
    auto a = fleet_args(scenario, *providers[static_cast<std::size_t>(i) % providers.size()]);
    a.insert(a.begin(), {"run", "--quiet", "--no-report", "--out", out, "--shard",
                         std::to_string(i) + "/" + std::to_string(n), "--start-at", start_at});
    shards.push_back(std::make_unique<Process>(kLoadgenBin, a, dir, "shard-" + std::to_string(i)));
    merge.push_back(out);
  }
  for (int i = 0; i < n; ++i) {
    INFO("shard " << i << ": " << shards[static_cast<std::size_t>(i)]->err());
    CHECK(shards[static_cast<std::size_t>(i)]->wait(60'000) == 0);
  }
  Process merging(kLoadgenBin, merge, dir, "merge");
  const int merged_code = merging.wait(60'000);
  INFO(merging.err());
  REQUIRE(merged_code == 0);
  return json::parse(read_file(dir.file("merged.json")));
}

}  // namespace

TEST_CASE("acceptance: three shards started together, merged, make the one-process fleet") {
  TempDir dir;
  write_file(dir.file("storm.json"), kScenario);
  FakeProvider provider({"--scenario", dir.file("storm.json"), "--time-scale", "1"});
  REQUIRE(provider.started());
  const auto args = fleet_args(dir.file("storm.json"), provider);

  const Run whole = run_loadgen(args);
  INFO(whole.err);
  REQUIRE(whole.code == 0);
  const json& one = whole.results;

  // Each shard opens its connections, then waits for the shared start.
  const json merged = run_shards_and_merge(dir.file("storm.json"), dir, 3, {&provider});

  const auto shard0 = json::parse(read_file(dir.file("shard-0.json")));
  CHECK(shard0["shard"]["count"] == 3);
  CHECK(shard0["counts"]["items"] == 100);
  CHECK(shard0["histograms"]["provider_side"] == false);  // the provider saw all three
  CHECK(shard0["provider"].contains("arrivals_by_outcome"));

  // Totals are exact: every item of every client, delivered.
  CHECK(merged["counts"]["items"] == one["counts"]["items"]);
  CHECK(merged["counts"]["delivered"] == one["counts"]["delivered"]);
  CHECK(merged["counts"]["unfinished"] == 0);
  CHECK(merged["live"]["loops"].get<int>() >= 3);
  // The loops' waits for a CPU add up, as their CPU does.
  double waited = 0;
  for (int i = 0; i < 3; ++i) {
    const auto shard = json::parse(read_file(dir.file("shard-" + std::to_string(i) + ".json")));
    waited += shard["live"].value("cpu_wait_s", 0.0);
  }
  CHECK(merged["live"]["cpu_wait_s"].get<double>() == doctest::Approx(waited).epsilon(1e-9));
  CHECK(merged["merged"]["missing"].empty());
  CHECK(merged["comparison"].contains("simulated"));
  // The provider's view, taken from its fullest fetch: its limiter held for the whole fleet.
  CHECK(merged["histograms"]["provider_side"] == true);
  CHECK(most_admitted_in_a_second(merged) <= 100);
  CHECK(most_admitted_in_a_second(one) <= 100);
  // Requests: within 5% of the one-process run. Shard 0 resets the provider as the others
  // start, so a few of their first sends can reach it before the reset and be admitted by the
  // provider's previous window (fewer retries); and a send later than most of a window lands
  // in the next one (more). The provider's count can miss those first sends too.
  const double a = one["counts"]["requests"].get<double>();
  const double b = merged["counts"]["requests"].get<double>();
  MESSAGE("requests: one process " << a << ", three shards merged " << b << "; provider saw "
                                   << merged["provider"]["requests"]);
  if (kTimingExact) {
    CHECK(std::abs(b - a) <= 0.05 * a);
    CHECK(std::abs(merged["provider"]["requests"].get<double>() - b) <= 0.05 * b);
  }
}

TEST_CASE("acceptance: three replicas sharing Redis, four shards, enforce one allowance" *
          doctest::test_suite("alone")) {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  TempDir dir;
  write_file(dir.file("storm.json"), kScenario);
  FakeProvider single({"--scenario", dir.file("storm.json"), "--time-scale", "1"});
  REQUIRE(single.started());
  const Run whole = run_loadgen(fleet_args(dir.file("storm.json"), single));
  INFO(whole.err);
  REQUIRE(whole.code == 0);
  const json& one = whole.results;

  std::vector<std::unique_ptr<FakeProvider>> replicas;
  std::vector<const FakeProvider*> targets;
  for (int i = 0; i < 3; ++i) {
    replicas.push_back(std::make_unique<FakeProvider>(
        std::vector<std::string>{"--scenario", dir.file("storm.json"), "--time-scale", "1",
                                 "--store", redis.url("acceptance")}));
    REQUIRE(replicas.back()->started());
    targets.push_back(replicas.back().get());
  }
  // Shards 0 and 3 on replica 0, 1 on 1, 2 on 2; shard 0 resets replica 0, and with it the
  // store: replicas 1 and 2 follow its new t = 0 on their first request.
  const json merged = run_shards_and_merge(dir.file("storm.json"), dir, 4, targets);

  CHECK(merged["counts"]["items"] == one["counts"]["items"]);
  CHECK(merged["counts"]["delivered"] == one["counts"]["delivered"]);
  CHECK(merged["counts"]["unfinished"] == 0);
  CHECK(merged["histograms"]["provider_side"] == true);
  // The replicas' arrival counts, added, admit exactly the allowance in every window the
  // storm fills (each admission recorded at the store's time, on the shared clock, so in the
  // window that admitted it): second by second what the one provider admitted.
  const auto shared_bins = admitted_per_second(merged);
  const auto single_bins = admitted_per_second(one);
  MESSAGE("admitted per second: one provider " << json(single_bins).dump() << ", three replicas "
                                               << json(shared_bins).dump());
  CHECK(most_admitted_in_a_second(merged) == 100);
  for (const auto& r : replicas) CHECK(r->stats()["requests"].get<std::int64_t>() > 0);
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
  // Under TSan four shards on two cores send their 300 first requests over more than a window
  // (seen: windows 0-2 full, 453 requests, drained at 3.0 s), and under ASan beside a build
  // (seen: [100,100,15,49,36] against [100,100,0,100]): not the one-process storm, so the
  // comparisons with it below are the Release build's.
  CHECK(shared_bins == single_bins);
  // Requests within 5% and the drain in the same window as the one-process run's: without
  // jitter every retry round lands just after a window opens, so the counts are the
  // one-process ones unless a send is late by most of a window (it then moves to the next
  // window, changing requests by a round and the drain by a whole second). Slower answers
  // (seven processes on two cores) move the drain within its window:
  // 0.3-0.45 s later than the one-process run's with three CPU hogs beside the test.
  const double a = one["counts"]["requests"].get<double>();
  const double b = merged["counts"]["requests"].get<double>();
  const double drain_one = one["summary"]["drain_s"].get<double>();
  const double drain_merged = merged["summary"]["drain_s"].get<double>();
  MESSAGE("requests: one process " << a << ", four shards on three replicas " << b << "; drain "
                                   << drain_one << " s vs " << drain_merged << " s");
  CHECK(std::abs(b - a) <= 0.05 * a);
  CHECK(std::floor(drain_merged) == std::floor(drain_one));
#endif
}

TEST_CASE("only shard 0 resets the provider, a shard past --start-at says how late") {
  TempDir dir;
  write_file(dir.file("storm.json"), kScenario);
  FakeProvider provider({"--scenario", dir.file("storm.json"), "--time-scale", "1"});
  REQUIRE(provider.started());
  auto args = fleet_args(dir.file("storm.json"), provider);
  args.insert(args.end(), {"--shard", "1/3", "--start-at", epoch_seconds_from_now(-2)});
  const Run first = run_loadgen(args);
  INFO(first.err);
  REQUIRE(first.code == 0);
  CHECK(first.results["shard"]["start_late_s"].get<double>() >= 2.0);
  CHECK(first.results["live"]["start_late_s"].get<double>() >= 2.0);
  const std::int64_t sent = first.results["counts"]["requests"];
  CHECK(provider.stats()["requests"] == sent);

  const Run second = run_loadgen(args);
  REQUIRE(second.code == 0);
  // Shard 1 did not reset: the provider holds both runs' requests.
  CHECK(provider.stats()["requests"] ==
        sent + second.results["counts"]["requests"].get<std::int64_t>());
}

TEST_CASE("--shard is checked like every flag: one line, exit 2") {
  TempDir dir;
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"simulate", "--shard", "3/3"}, "index outside"},
           {{"simulate", "--shard", "x"}, "is not I/N"},
           {{"run", "--url", "http://127.0.0.1:1/", "--clients", "2", "--shard", "0/3"},
            "3 shards of 2 clients"},
           {{"run", "--url", "http://127.0.0.1:1/", "--start-at", "soon"}, "--start-at: 'soon'"},
       }) {
    Process p(kLoadgenBin, args, dir, "bad");
    CHECK(p.wait(10'000) == 2);
    INFO(p.err());
    CHECK(p.err().find(says) != std::string::npos);
  }
}
