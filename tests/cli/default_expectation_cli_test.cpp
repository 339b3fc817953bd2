// simulate and gate hold a fleet to what run holds it to: delivered > 0 unless --expect-none,
// a latency or drain check that fails over no delivered item, a retry check refused (exit 2)
// on a fleet that never retried, and a JUnit file a case per check.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

std::vector<std::string> lines_with(const std::string& text, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& line : lines(text)) {
    if (contains(line, part)) out.push_back(line);
  }
  return out;
}

// examples/storm.json's provider and fleet, without its expectations: what a user checks with
// --assert alone.
std::string storm_without_expectations(const TempDir& dir) {
  auto storm = json::parse(read_file(kStorm));
  storm.erase("expectations");
  const auto path = dir.file("storm.json");
  write_file(path, storm.dump());
  return path;
}

const std::vector<std::string> kLatencyChecks{"--assert", "drain_s <= 60s", "--assert",
                                              "p99_s <= 30s"};

}  // namespace

TEST_CASE("simulate: aws-standard dead-letters the whole storm and fails, latencies too") {
  const auto storm = run_binary(
      "loadgen", {"simulate", "--scenario", kStorm, "--policy", "aws-standard", "--no-report"});
  CHECK(storm.code == 1);
  CHECK(contains(storm.out, "delivered 0 of 1000, dead-lettered 1000"));

  const TempDir dir;
  const auto plain = storm_without_expectations(dir);
  const auto r = run_binary(
      "loadgen", with({"simulate", "--scenario", plain, "--policy", "aws-standard", "--no-report"},
                      kLatencyChecks));
  CHECK(r.code == 1);
  CHECK(lines_with(r.out, "PASS").empty());
  for (const char* check : {"drain_s <= 60s (0)", "p99_s <= 30s (0)"}) {
    CAPTURE(check);
    const auto line = lines_with(r.out, check);
    REQUIRE(line.size() == 1);
    CHECK(contains(line[0], "FAIL"));
    CHECK(contains(line[0], "no item was delivered, so "));
  }
  const auto delivered = lines_with(r.out, "delivered > 0 (0)");
  REQUIRE(delivered.size() == 1);
  CHECK(contains(delivered[0], "FAIL"));

  // --expect-none drops only the default: the latencies over nothing still fail.
  const auto none = run_binary("loadgen", with({"simulate", "--scenario", plain, "--policy",
                                                "aws-standard", "--no-report", "--expect-none"},
                                               kLatencyChecks));
  CHECK(none.code == 1);
  CHECK(lines_with(none.out, "delivered > 0").empty());
  const auto nothing_asked =
      run_binary("loadgen", {"simulate", "--scenario", plain, "--policy", "aws-standard",
                             "--no-report", "--expect-none"});
  CHECK(nothing_asked.code == 0);
}

TEST_CASE("simulate and gate write JUnit, a case per check, delivered > 0 among them") {
  const TempDir dir;
  const auto plain = storm_without_expectations(dir);
  const auto results = dir.file("aws.json");
  const auto sim = run_binary(
      "loadgen", with({"simulate", "--scenario", plain, "--policy", "aws-standard", "--out",
                       results, "--no-report", "--junit", dir.file("simulate.xml")},
                      kLatencyChecks));
  CHECK(sim.code == 1);
  const auto sim_xml = read_file(dir.file("simulate.xml"));
  CHECK(contains(sim_xml, "tests=\"3\" failures=\"3\" errors=\"0\""));
  CHECK(contains(sim_xml, "name=\"delivered &gt; 0\""));
  CHECK(contains(sim_xml, "no item was delivered, so drain_s measures nothing"));

  // gate judges the document as simulate did, and adds the default again.
  const auto gate = run_binary("loadgen", {"gate", results, "--junit", dir.file("gate.xml")});
  CHECK(gate.code == 1);
  const auto gate_xml = read_file(dir.file("gate.xml"));
  CHECK(contains(gate_xml, "failures=\"1\""));
  CHECK(contains(gate_xml, "name=\"delivered &gt; 0\""));
  CHECK(run_binary("loadgen", {"gate", results, "--expect-none", "--quiet"}).code == 0);
  CHECK(
      run_binary("loadgen", {"gate", results, "--assert", "p95_s < 1", "--expect-none", "--quiet"})
          .code == 1);

  const auto bad = run_binary("loadgen", {"simulate", "--scenario", plain, "--junit",
                                          dir.file("no/such/folder/j.xml"), "--no-report"});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "--junit"));
}

TEST_CASE("simulate and gate refuse a retry check on a fleet that never retried: exit 2") {
  const TempDir dir;
  const auto results = dir.file("calm.json");
  // Ten clients against 100 a second: nobody is ever refused, nobody retries.
  const std::vector<std::string> calm{
      "simulate", "--clients", "10",          "--allowance", "100/s",
      "--out",    results,     "--no-report", "--junit",     dir.file("calm.xml")};
  const auto sim = run_binary("loadgen", with(calm, {"--assert", "retry_share < 0.5"}));
  CHECK(sim.code == 2);
  const auto refused = lines_with(sim.out, "retry_share < 0.5 (0)");
  REQUIRE(refused.size() == 1);
  CHECK(contains(refused[0], "REFUSED"));
  CHECK(contains(refused[0], "not exercised"));
  for (const char* remedy : {"--clients", "--allowance", "--outage"}) {
    CAPTURE(remedy);
    CHECK(contains(refused[0], remedy));
  }
  CHECK(contains(read_file(dir.file("calm.xml")), "errors=\"1\""));
  // On stderr too, as a usage error is, --quiet or not.
  const auto quiet = run_binary("loadgen", with(calm, {"--assert", "retry_share < 0.5", "-q"}));
  CHECK(quiet.code == 2);
  CHECK(quiet.out.empty());
  CHECK(contains(quiet.err, "loadgen: retry_share < 0.5 refused: retry_share is not exercised"));
  const auto doc = json::parse(read_file(results));
  CHECK(doc["assertions"][0]["refused"] == true);

  const auto gate = run_binary("loadgen", {"gate", results, "--assert", "peak_retries <= 5"});
  CHECK(gate.code == 2);
  CHECK(contains(gate.out, "REFUSED  peak_retries <= 5"));
  // What the run did exercise still gates it.
  CHECK(run_binary("loadgen", {"gate", results, "--assert", "p99_s < 1", "--quiet"}).code == 0);
}
