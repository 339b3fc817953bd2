// Runs that measured something other than the fleet, against the real fakeprovider on loopback:
// a fleet the provider could not hold the connections of (a harness failure, exit 3, naming
// the remedy), and a provider that disagrees with the scenario (the divergence said first, and
// sim_divergence for a gate).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// 200 clients against a provider that holds 20 connections: the other 180 are turned away
// each time they try, while the 20 keep theirs open. Three attempts each, a short backoff:
// bounded in count and time.
std::vector<std::string> crowded_fleet(const FakeProvider& p) {
  return {"--url", p.url(),      "--clients",    "200",    "--max-attempts",
          "3",     "--strategy", "full-jitter",  "--base", "10ms",
          "--cap", "50ms",       "--expect-none"};
}

bool names_remedy(const std::string& text) {
  return text.find("fakeprovider --processes N") != std::string::npos &&
         text.find("--max-connections") != std::string::npos &&
         text.find("ulimit -n") != std::string::npos;
}

}  // namespace

TEST_CASE("live: a fleet the provider could not hold the connections of is a harness failure") {
  FakeProvider p({"--max-connections", "20"});
  REQUIRE(p.started());

  SUBCASE("with --provider-admin: the provider's own count of refusals") {
    const auto r = run_loadgen(with(crowded_fleet(p), {"--provider-admin", p.admin()}));
    INFO(r.err);
    CHECK(r.code == 3);
    CHECK(r.err.find("harness failure") != std::string::npos);
    CHECK(r.err.find("found the provider full") != std::string::npos);
    CHECK(names_remedy(r.err));
    REQUIRE(r.results.is_object());
    CHECK(r.results["provider"]["connections_refused"].get<std::int64_t>() > 100);
  }
  SUBCASE("without it: the clients' connection errors alone warn, naming the remedy") {
    // A provider that was down looks the same from the clients: the checks judge the fleet.
    const auto r = run_loadgen(crowded_fleet(p));
    INFO(r.err);
    CHECK(r.code != 3);
    CHECK(r.err.find("warning: the fleet mostly could not connect") != std::string::npos);
    CHECK(r.err.find("were refused or reset before an answer") != std::string::npos);
    CHECK(names_remedy(r.err));
  }
  // The provider's own line says what to do, not only how many.
  CHECK(p.stop() == 0);
  CHECK(p.err().find("refused at --max-connections") != std::string::npos);
  CHECK(names_remedy(p.err()));
}

TEST_CASE("live: a provider with room for the fleet refuses nothing and the run passes") {
  FakeProvider p({});
  REQUIRE(p.started());
  const auto r = run_loadgen(with(crowded_fleet(p), {"--provider-admin", p.admin()}));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.results["provider"]["connections_refused"] == 0);
}

TEST_CASE("live: a provider that disagrees with the scenario: the divergence first, and gated") {
  // The scenario's provider admits 10 a second; this one admits all 50 at once. Both clocks at
  // a twentieth of the wall's; no --provider-admin, whose checks would refuse the disagreement.
  FakeProvider p({"--allowance", "1000/s", "--time-scale", "0.05"});
  REQUIRE(p.started());
  TempDir dir;
  const auto r =
      run_binary("loadgen", {"run", "--url", p.url(), "--clients", "50", "--allowance", "10/s",
                             "--time-scale", "0.05", "--allow-time-scale", "--out",
                             dir.file("r.json"), "--assert", "sim_divergence < 0.05"});
  INFO(r.out, r.err);
  CHECK(r.code == 1);
  CHECK(r.out.rfind("DIVERGED: ", 0) == 0);
  CHECK(r.out.find("the provider's settings") != std::string::npos);
  CHECK(r.out.find("for a CPU over") != std::string::npos);
  CHECK(r.out.find("FAIL  sim_divergence < 0.05") != std::string::npos);
  const auto j = json::parse(read_file(dir.file("r.json")));
  CHECK(j["summary"]["sim_divergence"].get<double>() > 0.05);
  CHECK(j["summary"]["sim_divergence"] == j["comparison"]["arrivals_per_second"]["sim_divergence"]);
}
