// The acceptance for sharded simulation: every shard simulated alone, merged, is the
// unsharded simulation byte for byte; and merge refuses what is not one fleet's shards.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

struct Exit {
  int code = -1;
  std::string err;
};

Exit loadgen(const TempDir& dir, std::vector<std::string> args) {
  static int runs = 0;
  Process p(kLoadgenBin, args, dir, "loadgen-" + std::to_string(runs++));
  Exit e;
  e.code = p.wait(60'000);
  e.err = p.err();
  return e;
}

// Ran and wrote its results: 0, or 1 for a failed assertion (storm.json's exponential storm
// fails three of its four expectations, as it is meant to).
bool finished(const Exit& e) {
  return e.code == 0 || e.code == 1;
}

// simulate --shard i/N for every i, merged; returns merge's exit.
Exit simulate_and_merge(const TempDir& dir, const std::vector<std::string>& scenario, int count,
                        const std::string& merged) {
  std::vector<std::string> merge{"merge", "--quiet", "-o", merged};
  for (int i = 0; i < count; ++i) {
    const auto out = dir.file("shard-" + std::to_string(i) + "-of-" + std::to_string(count));
    const auto e = loadgen(dir, with({"simulate", "--quiet", "--no-report", "--out", out, "--shard",
                                      std::to_string(i) + "/" + std::to_string(count)},
                                     scenario));
    INFO(e.err);
    REQUIRE(finished(e));
    merge.push_back(out);
  }
  return loadgen(dir, merge);
}

const std::vector<std::vector<std::string>> kScenarios{
    {"--scenario", kStorm, "--strategy", "exponential"},
    {"--scenario", kStorm, "--strategy", "full-jitter"},
    {"--scenario", kStorm, "--workload", "steady", "--rate", "150/s", "--items", "3000",
     "--clients", "200"},
};

}  // namespace

TEST_CASE("acceptance: simulate --shard I/N for every I, merged, equals the unsharded run" *
          doctest::test_suite("long")) {
  TempDir dir;
  for (const auto& scenario : kScenarios) {
    const auto whole = dir.file("whole.json");
    const auto e =
        loadgen(dir, with({"simulate", "--quiet", "--no-report", "--out", whole}, scenario));
    REQUIRE(finished(e));
    const std::string expected = read_file(whole);
    REQUIRE(expected.size() > 1000);
    for (const int count : {1, 3, 4}) {
      INFO(scenario[3] << " " << count << " shards");
      const auto merged = dir.file("merged-" + std::to_string(count) + ".json");
      const auto m = simulate_and_merge(dir, scenario, count, merged);
      INFO(m.err);
      CHECK(m.code == e.code);               // the same assertions, the same verdicts
      CHECK(read_file(merged) == expected);  // byte for byte, as cmp would
    }
  }
}

TEST_CASE("a shard records only its own clients, and says which shard it is") {
  TempDir dir;
  const auto out = dir.file("s.json");
  REQUIRE(finished(loadgen(dir, {"simulate", "-q", "--no-report", "--scenario", kStorm, "--shard",
                                 "1/4", "--out", out})));
  const auto j = nlohmann::json::parse(read_file(out));
  CHECK(j["shard"] == nlohmann::json({{"index", 1}, {"count", 4}, {"start_late_s", 0.0}}));
  CHECK(j["counts"]["items"] == 250);
  CHECK(j["counts"]["delivered"] == 250);
}

TEST_CASE("merge refuses runs that are not one fleet's shards, in one line, exit 2") {
  TempDir dir;
  auto shard = [&](const std::string& name, const std::string& spec,
                   std::vector<std::string> extra = {}) {
    const auto out = dir.file(name);
    REQUIRE(finished(loadgen(dir, with({"simulate", "-q", "--no-report", "--scenario", kStorm,
                                        "--shard", spec, "--out", out},
                                       extra))));
    return out;
  };
  const auto s0 = shard("s0.json", "0/3");
  const auto s1 = shard("s1.json", "1/3");
  const auto s2 = shard("s2.json", "2/3");
  const auto seed = shard("seed.json", "2/3", {"--seed", "7"});
  const auto strategy = shard("strategy.json", "2/3", {"--strategy", "full-jitter"});
  const auto four = shard("four.json", "2/4");
  const auto again = shard("again.json", "1/3");
  auto refused = [&](const std::vector<std::string>& files, const std::string& says) {
    const auto e = loadgen(dir, with({"merge", "-q", "-o", dir.file("m.json")}, files));
    INFO(e.err);
    CHECK(e.code == 2);
    CHECK(e.err.find(says) != std::string::npos);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  };
  refused({s0, s1, seed}, "different seeds (1, 7)");
  refused({s0, s1, strategy}, "fleet.strategy differs");
  refused({s0, s1, four}, "different shard counts (3, 4)");
  refused({s0, s1, again}, "are both shard 1 of 3");
  refused({s0, s2}, "shard 1 of 3 is missing");
  refused({s0}, "shards 1, 2 of 3 are missing");

  SUBCASE("--partial merges what is there and names the missing shards") {
    const auto out = dir.file("partial.json");
    const auto e = loadgen(dir, {"merge", "-q", "--partial", "-o", out, s0, s2});
    INFO(e.err);
    CHECK(finished(e));
    const auto j = nlohmann::json::parse(read_file(out));
    CHECK(j["merged"]["missing"] == nlohmann::json::array({1}));
    CHECK(j["counts"]["items"] == 667);
    CHECK_FALSE(j.contains("shard"));
  }
}

TEST_CASE("an Indexed Job's JOB_COMPLETION_INDEX with STAMPEDE_SHARDS names the shard") {
  TempDir dir;
  const auto out = dir.file("s.json");
  setenv("JOB_COMPLETION_INDEX", "2", 1);
  setenv("STAMPEDE_SHARDS", "5", 1);
  const auto e =
      loadgen(dir, {"simulate", "-q", "--no-report", "--scenario", kStorm, "--out", out});
  unsetenv("STAMPEDE_SHARDS");
  const auto alone = loadgen(dir, {"simulate", "-q", "--no-report", "--scenario", kStorm});
  unsetenv("JOB_COMPLETION_INDEX");
  INFO(e.err);
  REQUIRE(finished(e));
  const auto j = nlohmann::json::parse(read_file(out));
  CHECK(j["shard"]["index"] == 2);
  CHECK(j["shard"]["count"] == 5);
  CHECK(alone.code == 2);
  CHECK(alone.err.find("STAMPEDE_SHARDS is not") != std::string::npos);
}
