// The simulators' results, byte for byte, for the example scenarios, presets, guards, seeds,
// occ mode and shards: a refactor of an engine or the item life must not move one byte.
//
// Each case's results JSON (to_json, dumped compactly) is reduced to a 64-bit FNV-1a digest,
// kept in golden/sim_digests.txt with the headline counts beside it, so a failure says which
// case moved and roughly how. A change that is meant to move a case (a bug fix) regenerates
// the file and says which cases moved and why in its commit message:
//   STAMPEDE_UPDATE_GOLDENS=1 build/bin/test_loadgen_core -tc='*golden*'
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results.hpp"
#include "scenario.hpp"
#include "sim/sim_trials.hpp"
#include "support/process.hpp"

using namespace stampede;

namespace {

const std::string kGoldens = support::source_path("tests/loadgen_core/golden/sim_digests.txt");

struct GoldenCase {
  std::string name;
  std::string file;  // under examples/; empty: the built-in default scenario
  std::vector<FieldOverride> overrides;
  Shard shard;
};

std::vector<GoldenCase> cases() {
  std::vector<GoldenCase> out;
  const auto add = [&](std::string name, std::string file, std::vector<FieldOverride> o,
                       Shard shard = {}) {
    for (const int seed : {1, 2}) {
      auto with_seed = o;
      with_seed.push_back({"fleet.seed", seed});
      out.push_back({name + " seed " + std::to_string(seed), file, with_seed, shard});
    }
  };
  add("default", "", {});
  add("storm", "storm.json", {});
  for (const char* strategy :
       {"fixed", "full-jitter", "equal-jitter", "decorrelated-jitter", "decorrelated-jitter-v2"})
    add(std::string("storm ") + strategy, "storm.json", {{"fleet.strategy", strategy}});
  for (const char* preset : {"aws-standard", "aws-adaptive", "grpc", "grpc-go", "polly",
                             "tenacity-exponential-jitter", "resilience4j", "sre"})
    add(std::string("storm policy ") + preset, "storm.json", {{"fleet.policy", preset}});
  add("storm breaker", "storm.json", {{"fleet.breaker", "5,10s"}});
  add("storm budget", "storm.json", {{"fleet.retry_budget", "10,0.1"}});
  add("storm deadline", "storm.json", {{"fleet.deadline", "40s"}});
  // A deadline with a breaker or the adaptive rate: a deadline give-up reserves nothing.
  add("storm deadline breaker", "storm.json",
      {{"fleet.deadline", "40s"}, {"fleet.breaker", "5,10s"}});
  add("storm deadline adaptive rate", "storm.json",
      {{"fleet.deadline", "40s"}, {"fleet.adaptive_rate", "on"}});
  // A storm's client has one item: a guard's state after a give-up shows in a queue's next.
  const std::vector<FieldOverride> queue = {
      {"fleet.workload", "queue"}, {"fleet.items", 3000}, {"fleet.deadline", "20s"}};
  auto queue_breaker = queue;
  queue_breaker.push_back({"fleet.breaker", "3,5s"});
  add("queue deadline breaker", "storm.json", queue_breaker);
  auto queue_rate = queue;
  queue_rate.push_back({"fleet.adaptive_rate", "on"});
  add("queue deadline adaptive rate", "storm.json", queue_rate);
  add("storm retry-after exact", "storm.json",
      {{"fleet.retry_after", "exact"}, {"fleet.strategy", "full-jitter"}});
  add("storm retry-after jittered", "storm.json",
      {{"fleet.retry_after", "jittered"}, {"fleet.strategy", "full-jitter"}});
  add("storm shard 0/2", "storm.json", {{"fleet.strategy", "full-jitter"}}, Shard{0, 2});
  add("storm shard 1/2", "storm.json", {{"fleet.strategy", "full-jitter"}}, Shard{1, 2});
  add("llm quotas", "llm_quotas.json", {});
  add("staging", "ci/staging.json", {});
  add("staging shard 1/3", "ci/staging.json", {}, Shard{1, 3});
  add("staging sre", "ci/staging.json", {{"fleet.policy", "sre"}});
  const std::vector<FieldOverride> occ = {{"provider.mode", "occ"},
                                          {"fleet.clients", 50},
                                          {"fleet.base", "10ms"},
                                          {"fleet.cap", "2s"},
                                          {"fleet.workload", "storm"}};
  add("occ", "", occ);
  auto occ_jitter = occ;
  occ_jitter.push_back({"fleet.strategy", "equal-jitter"});
  add("occ equal-jitter", "", occ_jitter);
  // The occ drifts: no throttle's local drop, no declared tokens, no shard.
  auto occ_sre = occ;
  occ_sre.push_back({"fleet.policy", "sre"});
  add("occ sre", "", occ_sre);
  auto occ_tokens = occ;
  occ_tokens.push_back({"fleet.tokens", 1000});
  occ_tokens.push_back({"provider.token_allowance", "5000/s"});
  add("occ tokens", "", occ_tokens);
  add("occ shard 1/2", "", occ, Shard{1, 2});
  return out;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// "digest requests delivered dead_lettered" of one case.
std::string line_of(const GoldenCase& c) {
  const std::string path = c.file.empty() ? "" : support::source_path("examples/" + c.file);
  const auto scenario = build_scenario(path, c.overrides);
  REQUIRE_MESSAGE(scenario, c.name << ": " << scenario.error());
  SimOptions options;
  options.shard = c.shard;
  const Results r = simulate_scenario(*scenario, options);
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx",
                static_cast<unsigned long long>(fnv1a(to_json(r).dump())));
  std::ostringstream out;
  out << digest << " requests " << r.recording.requests << " delivered " << r.recording.delivered
      << " dead " << r.recording.dead_lettered << " dropped " << r.recording.dropped;
  return out.str();
}

std::map<std::string, std::string> read_goldens() {
  std::map<std::string, std::string> out;
  std::ifstream in(kGoldens);
  std::string line;
  while (std::getline(in, line)) {
    const auto bar = line.find(" | ");
    if (line.empty() || line[0] == '#' || bar == std::string::npos) continue;
    out[line.substr(0, bar)] = line.substr(bar + 3);
  }
  return out;
}

}  // namespace

TEST_CASE("the simulators' results match their goldens byte for byte") {
  const bool update = std::getenv("STAMPEDE_UPDATE_GOLDENS") != nullptr;
  const auto goldens = read_goldens();
  std::ostringstream fresh;
  fresh << "# case | FNV-1a 64 of to_json(results).dump(), then headline counts.\n"
        << "# Regenerate: STAMPEDE_UPDATE_GOLDENS=1 build/bin/test_loadgen_core -tc='*golden*'\n";
  for (const auto& c : cases()) {
    const std::string got = line_of(c);
    fresh << c.name << " | " << got << "\n";
    if (update) continue;
    const auto it = goldens.find(c.name);
    REQUIRE_MESSAGE(it != goldens.end(), "no golden for " << c.name);
    CHECK_MESSAGE(got == it->second, c.name << ": got " << got << ", golden " << it->second);
  }
  if (update) {
    std::ofstream(kGoldens) << fresh.str();
    MESSAGE("wrote " << kGoldens);
  }
}
