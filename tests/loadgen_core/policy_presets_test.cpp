#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/retry_policy.hpp"
#include "policy_presets.hpp"

using namespace stampede;

namespace {

Scenario with_flags(const std::vector<FieldOverride>& overrides, const std::string& file = "") {
  auto s = build_scenario(file, overrides);
  REQUIRE_MESSAGE(s, s.error());
  return *s;
}

// Every wait the policy asks for after failure after failure (503s), until it gives up or
// `limit` retries were made; each wait in seconds.
struct Run {
  std::vector<double> waits_s;
  DeadLetterReason end = DeadLetterReason::kNone;
};

Run failures(const FleetConfig& fleet, std::uint64_t seed, int limit) {
  const RetryPolicy policy = RetryPolicy::from(fleet);
  ClientGuards guards = RetryPolicy::make_guards(fleet);
  Rng rng(seed);
  ItemState item;
  std::int64_t now = 0;
  Run run;
  for (int i = 0; i < limit; ++i) {
    const Step step =
        policy.on_outcome(now, Outcome::kUnavailable, std::nullopt, item, guards, rng);
    if (step.kind == Step::Kind::kDeadLetter) {
      run.end = step.reason;
      break;
    }
    run.waits_s.push_back(ns_to_s(step.at_ns - now));
    now = step.at_ns;
  }
  return run;
}

// One preset's documented formula: the wait before retry n (1-based) in seconds, given the
// library's uniform draws in [0, 1), taken in order from the same seeded stream.
struct Row {
  std::string preset;
  std::vector<FieldOverride> extra;  // fields given after the preset
  int retries;                       // how many the policy makes before it gives up
  DeadLetterReason end;              // why it stops (kNone: it never stops by itself)
  std::function<double(int n, const std::function<double()>& u, double& carry)> formula;
};

const std::vector<Row>& rows() {
  static const std::vector<Row> table{
      // botocore ExponentialBackoff: rand(0, 1) * min(2^(attempt-1), 20)
      {"aws-standard",
       {},
       2,
       DeadLetterReason::kAttempts,
       [](int n, const auto& u, double&) { return u() * std::min(std::pow(2, n - 1), 20.0); }},
      {"aws-adaptive",
       {},
       2,
       DeadLetterReason::kAttempts,
       [](int n, const auto& u, double&) { return u() * std::min(std::pow(2, n - 1), 20.0); }},
      // gRFC A6: random(0, min(initialBackoff * multiplier^(n-1), maxBackoff)), 0.1 s, 2, 1 s
      {"grpc",
       {},
       3,
       DeadLetterReason::kAttempts,
       [](int n, const auto& u, double&) { return u() * std::min(0.1 * std::pow(2, n - 1), 1.0); }},
      // grpc-go Exponential: BaseDelay for retries == 0, else
      // min(1s * 1.6^retries, 120s) * (1 + 0.2 * (rand * 2 - 1))
      {"grpc-go",
       {},
       12,
       DeadLetterReason::kNone,
       [](int n, const auto& u, double&) {
         if (n == 1) return 1.0;
         return std::min(std::pow(1.6, n - 1), 120.0) * (1 + 0.2 * (u() * 2 - 1));
       }},
      // Polly v8 defaults: constant 2 s, 3 retries
      {"polly", {}, 3, DeadLetterReason::kAttempts, [](int, const auto&, double&) { return 2.0; }},
      // Polly v8 exponential with jitter: DecorrelatedJitterBackoffV2, median first delay 2 s
      {"polly",
       {{"fleet.strategy", "decorrelated-jitter-v2"}},
       3,
       DeadLetterReason::kAttempts,
       [](int n, const auto& u, double& prev) {
         const double t = (n - 1) + u();
         const double next = std::pow(2, t) * std::tanh(std::sqrt(4 * t));
         const double d = (next - prev) / 1.4 * 2.0;
         prev = next;
         return d;
       }},
      // tenacity wait_exponential_jitter(initial=1, exp_base=2, jitter=1):
      // min(initial * 2^(attempt-1) + uniform(0, jitter), max); stop_never
      {"tenacity-exponential-jitter",
       {},
       12,
       DeadLetterReason::kNone,
       [](int n, const auto& u, double&) { return std::pow(2, n - 1) + u(); }},
      // resilience4j ofExponentialRandomBackoff(500 ms, 1.5, 0.5): interval * 1.5^(n-1), then
      // randomize: min + rand * (max - min) over [interval * 0.5, interval * 1.5]; 3 attempts
      {"resilience4j",
       {},
       2,
       DeadLetterReason::kAttempts,
       [](int n, const auto& u, double&) {
         const double interval = 0.5 * std::pow(1.5, n - 1);
         return interval * 0.5 + u() * (interval * 1.5 - interval * 0.5);
       }},
      // The SRE book: randomized exponential backoff (1 s, 60 s here); the 10% retry ratio
      // lets a fresh client's first retry through and refuses the second (1 of 2 requests).
      {"sre",
       {},
       1,
       DeadLetterReason::kRetryRatio,
       [](int n, const auto& u, double&) { return u() * std::min(std::pow(2, n - 1), 60.0); }},
      // A field after the preset wins: aws-standard with 4 attempts.
      {"aws-standard",
       {{"fleet.max_attempts", "4"}},
       4,
       DeadLetterReason::kAttempts,
       [](int n, const auto& u, double&) { return u() * std::min(std::pow(2, n - 1), 20.0); }},
  };
  return table;
}

}  // namespace

TEST_CASE("each preset's delays are its documented formula, draw for draw") {
  for (const auto& row : rows()) {
    for (const std::uint64_t seed : {1, 7, 42}) {
      CAPTURE(row.preset);
      CAPTURE(row.extra.size());
      CAPTURE(seed);
      auto overrides = row.extra;
      overrides.insert(overrides.begin(), {"fleet.policy", row.preset});
      const Scenario s = with_flags(overrides);
      CHECK(s.fleet.policy == row.preset);
      const Run run = failures(s.fleet, seed, 12);
      CHECK(run.end == row.end);
      REQUIRE(run.waits_s.size() == static_cast<std::size_t>(row.retries));
      Rng draws(seed);
      const std::function<double()> u = [&] { return draws.unit(); };
      double carry = 0;
      for (int n = 1; n <= row.retries; ++n) {
        CAPTURE(n);
        const double want = row.formula(n, u, carry);
        // The engines count whole nanoseconds; the integer draws are off by at most one.
        CHECK(run.waits_s[static_cast<std::size_t>(n - 1)] == doctest::Approx(want).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("hand-checked first delays for seed 1") {
  Rng draws(1);
  const double u1 = draws.unit();
  const double u2 = draws.unit();
  // aws-standard, retry 1 and 2: u1 * 1 s, u2 * 2 s.
  const Run aws = failures(with_flags({{"fleet.policy", "aws-standard"}}).fleet, 1, 12);
  REQUIRE(aws.waits_s.size() == 2);
  CHECK(aws.waits_s[0] == doctest::Approx(u1));
  CHECK(aws.waits_s[1] == doctest::Approx(2 * u2));
  // resilience4j, retry 1: 0.25 s + u1 * 0.5 s; retry 2: 0.375 s + u2 * 0.75 s.
  const Run r4j = failures(with_flags({{"fleet.policy", "resilience4j"}}).fleet, 1, 12);
  REQUIRE(r4j.waits_s.size() == 2);
  CHECK(r4j.waits_s[0] == doctest::Approx(0.25 + 0.5 * u1));
  CHECK(r4j.waits_s[1] == doctest::Approx(0.375 + 0.75 * u2));
  // grpc-go: exactly 1 s, then 1.6 s * (0.8 + 0.4 * u1).
  const Run go = failures(with_flags({{"fleet.policy", "grpc-go"}}).fleet, 1, 2);
  REQUIRE(go.waits_s.size() == 2);
  CHECK(go.waits_s[0] == 1.0);
  CHECK(go.waits_s[1] == doctest::Approx(1.6 * (0.8 + 0.4 * u1)));
}

TEST_CASE("a preset sets every policy field and leaves the workload alone") {
  const Scenario s = with_flags({{"fleet.clients", "7"},
                                 {"fleet.breaker", "5,30s"},
                                 {"fleet.policy", "aws-adaptive"},
                                 {"fleet.cap", "5s"}});
  CHECK(s.fleet.clients == 7);
  CHECK(s.fleet.breaker);  // a flag: applied after the preset, whatever the order given
  CHECK(s.fleet.strategy == StrategyKind::kFullJitter);
  CHECK(s.fleet.base_ns == kNsPerSec);
  CHECK(s.fleet.cap_ns == 5 * kNsPerSec);  // given after the preset
  CHECK(s.fleet.max_attempts == 2);
  CHECK(s.fleet.adaptive_rate);
  REQUIRE(s.fleet.retry_quota);
  CHECK(*s.fleet.retry_quota == RetryQuotaConfig{500, 5, 10, 1});
  const Scenario grpc = with_flags({{"fleet.policy", "grpc"}});
  REQUIRE(grpc.fleet.retry_budget);
  CHECK(*grpc.fleet.retry_budget == RetryBudgetConfig{10, 0.1});
  CHECK_FALSE(grpc.fleet.retry_quota);
  const Scenario sre = with_flags({{"fleet.policy", "sre"}});
  REQUIRE(sre.fleet.adaptive_throttle);
  CHECK(sre.fleet.adaptive_throttle->k == 2);
  CHECK(sre.fleet.adaptive_throttle->window_ns == 120 * kNsPerSec);
  REQUIRE(sre.fleet.retry_ratio);
  CHECK(sre.fleet.retry_ratio->ratio == doctest::Approx(0.1));
}

TEST_CASE("in a file the preset comes first, whatever the key order, a --policy flag wins") {
  const auto file = nlohmann::json::parse(
      R"({"fleet": {"max_attempts": 9, "policy": "polly", "strategy": "exponential"}})");
  auto s = scenario_from_json(file);
  REQUIRE(s);
  CHECK(s->fleet.policy == "polly");
  CHECK(s->fleet.max_attempts == 9);
  CHECK(s->fleet.strategy == StrategyKind::kExponential);
  CHECK(s->fleet.base_ns == 2 * kNsPerSec);
  // Round trip: the written scenario reads back the same policy.
  auto again = scenario_from_json(to_json(*s));
  REQUIRE(again);
  CHECK(again->fleet.max_attempts == 9);
  CHECK(again->fleet.strategy == StrategyKind::kExponential);
}

TEST_CASE("a --policy flag replaces the file's whole policy") {
  char path[] = "/tmp/stampede-policy-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string text =
      R"({"fleet": {"clients": 3, "breaker": "5,30s", "strategy": "exponential", "base": "3s"}})";
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  const Scenario s = with_flags({{"fleet.policy", "grpc"}}, path);
  unlink(path);
  CHECK(s.fleet.clients == 3);
  CHECK_FALSE(s.fleet.breaker);
  CHECK(s.fleet.strategy == StrategyKind::kFullJitter);
  CHECK(s.fleet.base_ns == 100 * kNsPerMs);
  CHECK(s.fleet.max_attempts == 3);
}

TEST_CASE("an unknown preset names the known ones") {
  Scenario s;
  const auto error = set_field(s, "fleet.policy", "aws-legacy");
  REQUIRE(error);
  CHECK(error->find("'aws-legacy' is not a policy preset") != std::string::npos);
  for (const auto& name : policy_preset_names()) CHECK(error->find(name) != std::string::npos);
  CHECK(policy_preset_names().size() == 8);
}
