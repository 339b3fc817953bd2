// The acceptance of LLM quotas (issue 8): a spend-cap 429 is never retried; a tokens-per-
// minute 429 is. The real fakeprovider on loopback, the real loadgen, scenario time compressed;
// every count comes from the run's own records and the provider's, none from a wall clock.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/sanitized.hpp"

using namespace support;
using nlohmann::json;

namespace {

const std::string kScale = "0.05";

// 30 clients at t=0 declaring 100 tokens each, against 1,000 tokens a minute per tenant.
std::vector<std::string> quotas(const std::string& spend_cap) {
  return {"--token-allowance", "1000/min", "--spend-cap", spend_cap, "--time-scale", kScale};
}

Run storm(const FakeProvider& p, const std::string& spend_cap) {
  std::vector<std::string> args{"--url", p.url(), "--provider-admin", p.admin(), "--clients", "30",
                                "--input-tokens", "100", "--strategy", "exponential",
                                "--retry-after", "exact",
                                // A spend cap retried would run into this, not on forever.
                                "--max-attempts", "10"};
  for (const auto& a : quotas(spend_cap)) args.push_back(a);
  return run_loadgen(args);
}

std::int64_t reason_count(const json& stats, const char* reason) {
  return stats["reasons"][reason].get<std::int64_t>();
}

// Each item's sends as the attempts file has them: send number -> HTTP status.
std::map<std::int64_t, std::map<int, int>> statuses_by_item(const Run& r) {
  std::map<std::int64_t, std::map<int, int>> out;
  for (const auto& a : r.attempts) out[a["item"]][a["send"]] = a["status"];
  return out;
}

}  // namespace

TEST_CASE("live: a spend-cap 429 is never retried, a tokens-per-minute 429 is, and delivers") {
  FakeProvider p(quotas("1500"));
  REQUIRE(p.started());
  const Run r = storm(p, "1500");
  INFO(r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  const json stats = p.stats();
  REQUIRE(stats.is_object());
  // 1,500 tokens serve 15 requests of 100; the other 15 items meet the cap.
  CHECK(r.results["counts"]["delivered"] == 15);
  CHECK(r.results["counts"]["dead_lettered"] == 15);
  CHECK(reason_count(stats, "served") == 15);
  CHECK(reason_count(stats, "token_rate_exceeded") >= 1);
  // Exactly one spend-cap answer per capped item: none of them came back after it.
  CHECK(reason_count(stats, "spend_cap_exceeded") == 15);
  // The run's results carry the provider's reasons too.
  CHECK(r.results["provider"]["reasons"] == stats["reasons"]);
  // Every arrival is a send the fleet made, and every send is in the attempts file.
  CHECK(stats["requests"] == r.results["counts"]["requests"]);
  CHECK(r.attempts.size() == stats["requests"].get<std::size_t>());
  const auto sends = statuses_by_item(r);
  REQUIRE(r.dead_letters.size() == 15);
  for (const auto& d : r.dead_letters) {
    CAPTURE(d.dump());
    CHECK(d["reason"] == "not_retryable");
    CHECK(d["last_status"] == 429);
    CHECK(d["last_outcome"] == "429");
    // The spend-cap 429 was the item's last send: nothing followed it.
    const auto& item = sends.at(d["item"]);
    CHECK(static_cast<std::int64_t>(item.size()) == d["sends"].get<std::int64_t>());
    CHECK(item.rbegin()->second == 429);
  }
  // Items refused for tokens were retried, and some of those retries were served.
  std::int64_t delivered_on_a_retry = 0;
  for (const auto& [item, by_send] : sends) {
    if (by_send.size() > 1 && by_send.rbegin()->second == 200) ++delivered_on_a_retry;
  }
  CHECK(delivered_on_a_retry >= 1);
}

TEST_CASE("live: items refused by the spend cap on their first send are dead-lettered after one") {
  FakeProvider p(quotas("500"));
  REQUIRE(p.started());
  const Run r = storm(p, "500");
  INFO(r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  const json stats = p.stats();
  CHECK(r.results["counts"]["delivered"] == 5);
  CHECK(reason_count(stats, "spend_cap_exceeded") == 25);
  CHECK(stats["requests"] == 30);
  REQUIRE(r.dead_letters.size() == 25);
  for (const auto& d : r.dead_letters) {
    CHECK(d["reason"] == "not_retryable");
    CHECK(d["sends"] == 1);
  }
}

// Issue 44's acceptance: examples/llm_max_tokens.json, the max_tokens trap, live at
// --time-scale 0.1 against a fakeprovider started from it, beside its simulation. At
// max_tokens 4096 the output-token reservations let 40 streams in at a time, the rest retry
// and the gate fails the run (exit 1); at --max-tokens 512 all 200 fit and it passes. The
// simulation reserves and settles as the provider does, so the requests agree.
TEST_CASE("live: the max_tokens trap fails at 4096 and passes at 512, as simulated") {
  const std::string scenario = source_path("examples/llm_max_tokens.json");
  struct Row {
    std::vector<std::string> more;
    int code;
    double requests;  // the simulation's, written in docs/LLM.md
  };
  for (const Row& row : {Row{{}, 1, 600}, Row{{"--max-tokens", "512"}, 0, 200}}) {
    CAPTURE(row.code);
    FakeProvider p({"--scenario", scenario, "--time-scale", "0.1"});
    REQUIRE(p.started());
    std::vector<std::string> args{"--scenario",       scenario,  "--url",        p.url(),
                                  "--provider-admin", p.admin(), "--time-scale", "0.1"};
    args.insert(args.end(), row.more.begin(), row.more.end());
    const Run r = run_loadgen(args);
    INFO(r.err);
    CHECK(r.code == row.code);
    REQUIRE(r.results.is_object());
    CHECK(r.results["counts"]["delivered"] == 200);
    const double live = r.results["counts"]["requests"].get<double>();
    const double simulated = r.results["comparison"]["simulated"]["requests"].get<double>();
    MESSAGE("requests: live " << live << ", simulated " << simulated);
    CHECK(simulated == row.requests);
    // Each wave's 40 admissions need a full bucket; the refill in a wave's spread cannot add
    // a 41st unless the wave's sends spread over 1.5 s of scenario time (150 ms of wall).
    // Under TSan they do, and the streams' ends (the refunds) come late too: CI saw 760
    // requests live against 600. There the gate's verdicts are what no timing changes: the
    // trap amplifies past the 1.1 it allows, and 512 fits at once.
    if (kTimingExact) {
      CHECK(std::abs(live - simulated) <= 0.01 * simulated);
    } else if (row.code == 1) {
      CHECK(live > 1.1 * 200);
    } else {
      CHECK(live == simulated);
    }
  }
}

// The token_limits section live (docs/RESULTS.md): what the clients read of each answer (a 429's
// body reason, an admitted request's max_tokens, the tokens streamed or the one body's usage)
// adds up to what the provider counted. Twelve requests reserving 4096 output tokens each
// against 40,960 a minute, each answer held 2 s (its service time, then its 50 tokens paced or
// in one body): ten are admitted at once, the others are refused by the output-token limit
// until answers end.
TEST_CASE("live: refusals by limit are the provider's reasons; reserved and settled as admitted") {
  // Streamed (the native client), and in one body through either client.
  for (const auto& [stream, client] :
       {std::pair{true, "native"}, std::pair{false, "native"}, std::pair{false, "libcurl"}}) {
    CAPTURE(stream);
    CAPTURE(std::string(client));
    FakeProvider p({"--dialect", "anthropic", "--output-token-allowance", "40960/min", "--latency",
                    "2s", "--output-tokens", "50", "--time-scale", "0.1"});
    REQUIRE(p.started());
    std::vector<std::string> args{
        "--url",         p.url(),  "--provider-admin", p.admin(), "--clients",    "12",
        "--max-tokens",  "4096",   "--strategy",       "fixed",   "--base",       "500ms",
        "--retry-after", "ignore", "--max-attempts",   "40",      "--time-scale", "0.1"};
    args.insert(args.end(), {"--http-client", client});
    if (stream) args.push_back("--stream");
    const Run r = run_loadgen(args);
    INFO(r.err);
    CHECK(r.code == 0);
    REQUIRE(r.results.is_object());
    const json stats = p.stats();
    REQUIRE(stats.is_object());
    REQUIRE(r.results.contains("token_limits"));
    const json& t = r.results["token_limits"];
    // Every 429 by the limit its body named, as the provider counted them by reason.
    const std::map<std::string, const char*> limit_of{
        {"request_rate_exceeded", "requests"},
        {"token_rate_exceeded", "tokens"},
        {"input_token_rate_exceeded", "input_tokens"},
        {"output_token_rate_exceeded", "output_tokens"},
        {"concurrency_exceeded", "concurrency"},
        {"spend_cap_exceeded", "spend_cap"}};
    std::int64_t refused = 0;
    for (const auto& [reason, limit] : limit_of) {
      CAPTURE(reason);
      const std::int64_t n = stats["reasons"].value(reason, std::int64_t{0});
      CHECK(t["refused_by"][limit] == n);
      refused += n;
    }
    CHECK(t["refused_by"]["other"] == 0);
    CHECK(refused == r.results["counts"]["statuses"].value("429", std::int64_t{0}));
    // The ten hold their reservations for 2 s of scenario time (200 ms of wall): the other
    // two, sent at t=0 too, are refused, unless a sanitizer spreads the sends that far.
    if (kTimingExact) CHECK(t["refused_by"]["output_tokens"].get<std::int64_t>() >= 2);
    // Each admitted request reserved its 4096 and was settled at the 50 tokens it was written.
    const std::int64_t served = reason_count(stats, "served");
    CHECK(served == 12);
    CHECK(t["requests_admitted"] == served);
    CHECK(t["output_tokens_reserved"] == served * 4096);
    CHECK(t["output_tokens_settled"] == served * 50);
  }
}
