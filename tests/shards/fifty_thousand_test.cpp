// The size: 50,000 live clients through one `loadgen run` against one `fakeprovider`
// command, each spreading itself over processes (the open-file limit here is 20,000) and the
// fleet over loopback source addresses (one reaches a port through about 28,000 local ports).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// examples/waves-50k.json: every client sends at t=0, a fixed window admits 12,500 a minute,
// and exponential backoff with base and cap of a minute sends every refused client again one
// minute after its answer: waves of 50,000, 37,500, 25,000 and 12,500, all through at t=180 s.
// A wave that reaches the provider over some seconds (50,000 sends take two cores about 1.5 s
// of wall time, 15 s of scenario time at --time-scale 0.1) still falls in its own window, so
// each window's and each send number's counts are the simulation's exactly, however loaded
// the machine; its seconds are not (the simulation's wave is one instant), and are reported.
const std::string kWaves = source_path("examples/waves-50k.json");

constexpr std::size_t kWindowS = 60;

// Per window of the allowance: the arrivals of label (or of all labels: -1).
std::vector<std::int64_t> per_window(const json& histogram, int label = -1) {
  std::vector<std::int64_t> out;
  const auto& bins = histogram["counts"];
  for (std::size_t s = 0; s < bins.size(); ++s) {
    if (s % kWindowS == 0) out.push_back(0);
    for (std::size_t l = 0; l < bins[s].size(); ++l)
      if (label < 0 || static_cast<int>(l) == label) out.back() += bins[s][l].get<std::int64_t>();
  }
  return out;
}

// Arrivals by send number (1st, 2nd, ...), over the whole run.
std::vector<std::int64_t> by_send(const json& histogram) {
  std::vector<std::int64_t> out;
  for (const auto& bin : histogram["counts"]) {
    if (out.size() < bin.size()) out.resize(bin.size());
    for (std::size_t l = 0; l < bin.size(); ++l) out[l] += bin[l].get<std::int64_t>();
  }
  return out;
}

}  // namespace

TEST_CASE(
    "slow: 50,000 live clients, one loadgen run against one fakeprovider command, equal "
    "the simulation by window and by send" *
    doctest::skip(!slow_tests()) * doctest::test_suite("alone")) {
  TempDir dir;
  const std::string& scenario = kWaves;
  FakeProvider p({"--scenario", scenario, "--time-scale", "0.1", "--processes", "3",
                  "--max-connections", "19000"});
  REQUIRE(p.started());
  // Without --attempts-out and --dead-letter (run_loadgen's): 125,000 lines to write and read.
  const auto r =
      run_binary("loadgen", {"run", "--scenario", scenario, "--url", p.url(), "--provider-admin",
                             p.admin(), "--time-scale", "0.1", "--max-duration", "600s", "--quiet",
                             "--out", dir.file("run.json")});
  INFO(r.err);
  CHECK(r.code == 0);
  const json j = json::parse(read_file(dir.file("run.json")), nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["summary"]["delivered"] == 50000);
  CHECK(j["counts"]["requests"] == 125000);
  CHECK(j["comparison"]["difference"]["requests"] == 0);

  const json sim = run_binary("loadgen", {"simulate", "--scenario", scenario, "--quiet", "--out",
                                          dir.file("sim.json")})
                               .code == 0
                       ? json::parse(read_file(dir.file("sim.json")))
                       : json();
  REQUIRE(sim.is_object());
  const json& live_h = j["histograms"];
  const json& sim_h = sim["histograms"];
  CHECK(live_h["provider_side"] == true);
  CHECK(per_window(live_h["provider_arrivals_by_outcome"]) ==
        per_window(sim_h["provider_arrivals_by_outcome"]));
  CHECK(per_window(live_h["provider_arrivals_by_outcome"], 0) ==
        std::vector<std::int64_t>{12500, 12500, 12500, 12500});
  CHECK(by_send(live_h["provider_arrivals_by_send"]) ==
        by_send(sim_h["provider_arrivals_by_send"]));

  // Three workers and the supervisor, each with its memory; two or more source addresses.
  const json& live = j["live"];
  REQUIRE(live["processes"].size() == 4);
  for (const auto& process : live["processes"]) CHECK(process["max_rss_kib"].get<double>() > 0);
  CHECK(live["source_addresses"].size() >= 2);
  MESSAGE("seconds differing from the simulation: "
          << j["comparison"]["arrivals_per_second"]["seconds_differing"] << " of "
          << j["comparison"]["arrivals_per_second"]["seconds"] << "; wake lateness p99 "
          << j["summary"]["lateness_p99_ms"] << " ms; workers late by "
          << j["merged"]["start_late_s"]);
  CHECK(p.stop() == 0);
}
