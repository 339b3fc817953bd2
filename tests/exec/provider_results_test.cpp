// fakeprovider's own results document (--results-out, GET /admin/results) from real fleets:
// one that sleeps exactly the Retry-After, and one that jitters it.
#include <doctest/doctest.h>
#include <signal.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "exec_support.hpp"
#include "live/provider_admin.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using support::FakeProvider;
using support::TempDir;

namespace {

constexpr const char* kToken = "s3cret-admin";

struct ProviderReport {
  nlohmann::json fetched;  // GET /admin/results after the fleet
  nlohmann::json written;  // --results-out, after SIGTERM
  std::string path;
  int run_code = -1;
  int provider_code = -1;
};

// 40 clients at once against 20/s with a fixed window: the first 20 through, the rest told
// "Retry-After: 1". fleet: how the clients wait.
ProviderReport storm(const TempDir& dir, const std::string& name,
                     const std::vector<std::string>& fleet,
                     const std::vector<std::string>& provider_flags = {}) {
  ProviderReport out;
  out.path = dir.file(name + ".json");
  std::vector<std::string> flags{"--allowance", "20/s",          "--admin-token",
                                 kToken,        "--results-out", out.path};
  flags.insert(flags.end(), provider_flags.begin(), provider_flags.end());
  FakeProvider provider(flags);
  REQUIRE(provider.started());
  std::vector<std::string> args{"--url",
                                provider.url(),
                                "--provider-admin",
                                provider.admin(),
                                "--clients",
                                "40",
                                "--allowance",
                                "20/s",
                                "--max-attempts",
                                "20",
                                "--max-duration",
                                "30s",
                                "--provider-admin-token",
                                kToken};
  args.insert(args.end(), fleet.begin(), fleet.end());
  const auto run = support::run_loadgen(args);
  INFO(run.err);
  out.run_code = run.code;
  const auto admin = stampede::parse_target_url(provider.admin());
  REQUIRE(admin);
  // Token-protected like every other admin route.
  CHECK_FALSE(stampede::ProviderAdmin(*admin, "wrong").results_json());
  const auto fetched = stampede::ProviderAdmin(*admin, kToken).results_json();
  REQUIRE_MESSAGE(fetched, fetched.error());
  out.fetched = *fetched;
  provider.process().signal(SIGTERM);
  out.provider_code = provider.process().wait(10'000);
  const auto text = support::read_file(out.path);
  REQUIRE_FALSE(text.empty());
  out.written = nlohmann::json::parse(text);
  return out;
}

// A loaded machine (the whole suite at once) wakes a fleet late, all clients alike: 100 to
// 500 ms were seen, past any tolerance a herd test could give and still tell a hint from a
// spread over it. What a stall cannot do is spread the waits, nor make one early: a fleet
// held to its hints is late by one amount, or a few when the stall falls inside the wave.
// A stall inside the wave spread a herd's waits over 211 ms once (the suite beside a build);
// a fleet that draws over the hint spreads them about 870 ms, and 20 draws or more all within
// 450 ms of each other are a chance of about 1 in 20,000.
const std::vector<std::string> kWiderTolerance{"--hint-tolerance", "400ms"};
constexpr std::int64_t kStallSpreadNs = 450 * stampede::kNsPerMs;

double summary(const nlohmann::json& doc, const char* key) {
  return doc["summary"][key].get<double>();
}

// How far apart the retries' distances from their hints are: about 0 for a fleet that sleeps
// its hints, wherever a stall put them; about the jitter's width for one that draws.
std::int64_t off_hint_spread_ns(const nlohmann::json& doc) {
  const auto& off = doc["provider_results"]["hint_waits"]["off_hint_ns"];
  return off["max"].get<std::int64_t>() - off["min"].get<std::int64_t>();
}

// loadgen ARGS to its exit: its code.
int loadgen(const TempDir& dir, const std::vector<std::string>& args) {
  support::Process p(support::bin_path("loadgen"), args, dir, "loadgen");
  const int code = p.wait(exec_test::kWaitMs);
  INFO(p.err());
  return code;
}

}  // namespace

TEST_CASE(
    "the provider's own document: a fleet that sleeps exactly the hint is a herd, one that "
    "jitters it is not") {
  TempDir dir;
  const auto herd =
      storm(dir, "herd", {"--retry-after", "exact", "--strategy", "fixed"}, kWiderTolerance);
  const auto spread =
      storm(dir, "spread", {"--retry-after", "jittered", "--strategy", "full-jitter"});
  for (const auto* r : {&herd, &spread}) {
    CHECK(r->run_code == 0);
    CHECK(r->provider_code == 0);
    // Written on SIGTERM; the fleet was over, so it is what GET /admin/results said.
    CHECK(r->written["summary"] == r->fetched["summary"]);
    CHECK(r->written["counts"] == r->fetched["counts"]);
    const auto& doc = r->written;
    CHECK(doc["engine"] == "fakeprovider");
    CHECK(doc["counts"]["items"] == 40);  // X-Request-Id names each item
    CHECK(doc["counts"]["delivered"] == 40);
    CHECK(doc["counts"]["requests"] == summary(doc, "provider_requests"));
    const auto& items = doc["provider_results"]["items"];
    CHECK(items["gave_up"] == 0);
    CHECK(items["arrivals_without_item"] == 0);
    CHECK(items["by_final_outcome"]["ok"] == 40);
    CHECK(doc["provider_results"]["hint_waits"]["retries"] == summary(doc, "retries"));
  }
  // Every retry its hint later (none early), all by one amount, in the waves of a bin or two:
  // the herd.
  CHECK(herd.written["provider_results"]["hint_waits"]["early"] == 0);
  CHECK(off_hint_spread_ns(herd.written) < kStallSpreadNs);
  CHECK(herd.written["provider_results"]["hint_waits"]["tolerance_ms"] == 400);
  CHECK(spread.written["provider_results"]["hint_waits"]["tolerance_ms"] == 100);
  CHECK(summary(herd.written, "lockstep") > 0.9);
  // Hint plus a draw: few at it, the distances from it as wide as the draw, the retries spread.
  CHECK(summary(spread.written, "hint_share") < 0.5);
  CHECK(off_hint_spread_ns(spread.written) > kStallSpreadNs);
  CHECK(summary(spread.written, "lockstep") < summary(herd.written, "lockstep") - 0.2);

  // loadgen gate holds the provider's document to it; report draws it.
  const std::vector<std::string> no_herd{"--assert", "hint_share < 0.5", "--assert",
                                         "lockstep < 0.8"};
  auto args = std::vector<std::string>{"gate", herd.path, "--quiet"};
  args.insert(args.end(), no_herd.begin(), no_herd.end());
  CHECK(loadgen(dir, args) == 1);
  args[1] = spread.path;
  CHECK(loadgen(dir, args) == 0);
  CHECK(loadgen(dir, {"report", herd.path, "-o", dir.file("herd.html"), "--quiet"}) == 0);
  CHECK(support::read_file(dir.file("herd.html")).find("<svg") != std::string::npos);
}

TEST_CASE(
    "the provider's own document: waits are held to the jittered hint each client was sent, "
    "not the limiter's") {
  TempDir dir;
  // The limiter's hint (under a second, sent as 1) stretched by up to 1.9x: sent as 2 s to
  // nearly every client, and a fleet that sleeps what it is told is still at its hint.
  const auto r = storm(dir, "jittered-hint", {"--retry-after", "exact", "--strategy", "fixed"},
                       {"--retry-after-jitter", "0.9"});
  CHECK(r.run_code == 0);
  const auto& waits = r.written["provider_results"]["hint_waits"];
  INFO(waits.dump());
  CHECK(waits["retries"].get<std::int64_t>() >= 20);
  // Waiting the limiter's hint (under a second) where 2 s was sent is early by a second.
  CHECK(waits["early"] == 0);
  CHECK(off_hint_spread_ns(r.written) < kStallSpreadNs);
}
