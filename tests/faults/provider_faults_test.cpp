// Faults mid-run, with the real binaries: the provider killed during a storm (and restarted on
// the same port), and answers slower than the client's --timeout. Every scenario runs at
// --time-scale 0.05; what is checked is the run's own record (outcome counts, sends per item,
// dead letters, exit code), never a wall time.
#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <optional>
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
using nlohmann::json;

namespace {

const std::string kFaultsScale = "0.05";

std::string url_at(int port) {
  return "http://127.0.0.1:" + std::to_string(port) + "/v1/messages";
}

// What the clients saw, added up over the run: client_sends_by_outcome for one label.
std::int64_t sends_with(const json& results, const std::string& label) {
  const auto& h = results["histograms"]["client_sends_by_outcome"];
  const auto& labels = h["labels"];
  const auto at = std::find(labels.begin(), labels.end(), label) - labels.begin();
  std::int64_t n = 0;
  for (const auto& bin : h["counts"]) n += bin[at].get<std::int64_t>();
  return n;
}

std::int64_t count(const json& r, const char* name) {
  return r["counts"][name].get<std::int64_t>();
}

// Every client's first send has reached the provider.
bool first_sends_in(const FakeProvider& p, std::int64_t clients) {
  return wait_until(
      [&] {
        const auto s = p.stats();
        return s.is_object() && s["requests"].get<std::int64_t>() >= clients;
      },
      20'000);
}

// loadgen run in the background, with every output file, for the tests that act mid-run.
struct BackgroundRun {
  TempDir dir;
  Process process;
  explicit BackgroundRun(const std::vector<std::string>& args)
      : process(bin_path("loadgen"),
                with({"run", "--quiet", "--out", dir.file("r.json"), "--dead-letter",
                      dir.file("dead.jsonl")},
                     args),
                dir, "loadgen") {}
  Run finish() {
    Run r;
    r.code = process.wait(60'000);
    r.err = process.err();
    const std::string results = read_file(dir.file("r.json"));
    if (!results.empty()) r.results = json::parse(results);
    r.dead_letters = read_json_lines(dir.file("dead.jsonl"));
    return r;
  }
};

}  // namespace

TEST_CASE(
    "provider killed mid-storm: connection errors, retries per policy, dead letters, exit 1") {
  const int port = unused_port();
  FakeProvider p({"--outage", "0s-1000s:503", "--retry-after", "off", "--time-scale", kFaultsScale},
                 ProviderOptions{.port = port});
  REQUIRE(p.started());
  // Ten scenario seconds between sends: the kill lands long before any item's second send.
  BackgroundRun run({"--url", url_at(port), "--time-scale", kFaultsScale, "--allow-time-scale",
                     "--clients", "20", "--strategy", "fixed", "--base", "10s", "--max-attempts",
                     "3", "--assert", "delivered == items"});
  REQUIRE(first_sends_in(p, 20));
  p.process().signal(SIGKILL);
  const Run r = run.finish();
  INFO(r.err);
  CHECK(r.code == 1);  // the assertion failed; not 3: the first sends were answered
  REQUIRE(r.results.is_object());
  CHECK(count(r.results, "dead_lettered") == 20);
  CHECK(count(r.results, "requests") == 20 * 4);
  // Each first send was decided before the kill; on a loaded machine the kill can still beat
  // the writing of some answers, and those sends end in a reset, not a 503. Every later send
  // finds no provider.
  const auto answered = sends_with(r.results, "503");
  CHECK(answered <= 20);
  CHECK(answered + sends_with(r.results, "connect_error") == 20 * 4);
  REQUIRE(r.dead_letters.size() == 20);
  for (const auto& d : r.dead_letters) {
    CHECK(d["sends"] == 4);
    CHECK(d["reason"] == "attempts_exhausted");
    CHECK(d["last_outcome"] == "connect_error");
  }
}

TEST_CASE(
    "provider killed mid-storm and restarted on its port: the run recovers and delivers all") {
  const int port = unused_port();
  std::optional<FakeProvider> p;
  p.emplace(std::vector<std::string>{"--outage", "0s-1000s:503", "--retry-after", "off",
                                     "--time-scale", kFaultsScale},
            ProviderOptions{.port = port});
  REQUIRE(p->started());
  // Retries every 2-4 scenario seconds (100-200 ms of wall time), with no attempt cap.
  BackgroundRun run({"--url", url_at(port), "--time-scale", kFaultsScale, "--allow-time-scale",
                     "--clients", "20", "--strategy", "exponential", "--base", "2s", "--cap", "4s",
                     "--max-attempts", "0", "--assert", "delivered == items"});
  REQUIRE(first_sends_in(*p, 20));
  p->process().signal(SIGKILL);
  p->process().wait(10'000);
  // Down for several retry intervals, so every client meets the refusal at least once (a
  // margin, not a measurement: the check below is on the run's own counts).
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  p.emplace(std::vector<std::string>{"--time-scale", kFaultsScale}, ProviderOptions{.port = port});
  REQUIRE(p->started());
  const Run r = run.finish();
  INFO(r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  CHECK(count(r.results, "delivered") == 20);
  CHECK(count(r.results, "dead_lettered") == 0);
  // Every client met the outage (its first send: a 503, or a reset when the kill beat the
  // writing of its answer) and then the dead port, before its one success.
  const auto failed = sends_with(r.results, "503") + sends_with(r.results, "connect_error");
  CHECK(sends_with(r.results, "connect_error") >= 20);
  CHECK(failed >= 2 * 20);
  CHECK(sends_with(r.results, "ok") == 20);
  CHECK(r.dead_letters.empty());
}

TEST_CASE("answers slower than --timeout are timeouts, retried like any retryable failure") {
  // The provider holds each answer 5 scenario seconds; the clients wait 1.
  FakeProvider p({"--latency", "5s", "--time-scale", kFaultsScale});
  REQUIRE(p.started());
  const Run r =
      run_loadgen({"--url", p.url(), "--time-scale", kFaultsScale, "--allow-time-scale",
                   "--clients", "10", "--strategy", "fixed", "--base", "1s", "--max-attempts", "2",
                   "--timeout", "1s", "--assert", "delivered == items"});
  INFO(r.err);
  CHECK(r.code == 1);
  REQUIRE(r.results.is_object());
  CHECK(sends_with(r.results, "timeout") == 10 * 3);
  CHECK(sends_with(r.results, "ok") == 0);
  CHECK(count(r.results, "dead_lettered") == 10);
  REQUIRE(r.dead_letters.size() == 10);
  for (const auto& d : r.dead_letters) {
    CHECK(d["sends"] == 3);
    CHECK(d["reason"] == "attempts_exhausted");
    CHECK(d["last_outcome"] == "timeout");
  }
}
