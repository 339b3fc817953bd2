// The one rule every command gates by (core/gate.hpp), as a table: for each gated metric and
// each command, what a check on it comes to on a run where it can be computed, on one where it
// cannot, and on one that never exercised it.
#include <doctest/doctest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "exit_codes.hpp"
#include "gate.hpp"
#include "results.hpp"

using namespace stampede;

namespace {

// What a check came to: passed on its numbers; refused before the run (a usage error); refused
// after it (exit 2); failed whatever its numbers.
enum class Came { kPassed, kUsage, kRefused, kFailed };

const char* name(Came c) {
  switch (c) {
    case Came::kPassed:
      return "passed";
    case Came::kUsage:
      return "usage error";
    case Came::kRefused:
      return "refused";
    case Came::kFailed:
      return "failed";
  }
  return "?";
}

enum class Situation { kComputable, kNotComputable, kNotExercised };

// Each command as its run's results are made: the engine the results name, and what it reads.
struct Command {
  const char* name;
  const char* engine;
  bool provider_view_always;  // simulate's model, exec's and the provider's own document
  bool provider_results;      // the provider's per-item record
};
constexpr Command kRun{"run", "run", false, false};
constexpr Command kSimulate{"simulate", "simulate", true, false};
constexpr Command kExec{"exec", "exec", true, true};
// gate judges any engine's document as that engine's run; the provider's own is its own case.
constexpr Command kGate{"gate", "fakeprovider", true, true};

bool clients_recorded(const Command& c) {
  return std::string(c.engine) == "run" || std::string(c.engine) == "simulate";
}

// One send: the clients' record (run, simulate), or the provider's arrivals standing in for it
// (exec, the provider's document), numbered or not.
void send(Recording& r, const Command& c, std::int64_t t_ns, int number, Outcome o, bool numbered) {
  if (clients_recorded(c)) {
    r.record_send(t_ns, number, o);
    return;
  }
  r.provider_by_outcome.add(t_ns, static_cast<std::size_t>(o));
  if (numbered) r.provider_by_send.add(t_ns, send_label(number));
  ++r.requests;
}

// Computable: an allowance, the provider's view, every send numbered, retries and deliveries.
// Not computable: no allowance, no provider view where the command can lack it (run without
// --provider-admin), sends the provider could not number (exec, the provider's document).
// Not exercised: no retry, nothing delivered (every first send answered 404).
struct Run {
  Results results;
  MetricContext planned;
};
Run run_of(const Command& c, Situation s) {
  Run run;
  Results& r = run.results;
  r.engine = c.engine;
  if (s != Situation::kNotComputable) r.scenario.provider.allowance = *parse_rate("10/s");
  r.provider_side = c.provider_view_always || s != Situation::kNotComputable;
  const bool numbered = s != Situation::kNotComputable;
  Recording& rec = r.recording;
  rec.items = 4;
  for (std::int64_t i = 0; i < 4; ++i) {
    if (s == Situation::kNotExercised) {
      send(rec, c, i, 1, Outcome::kClientError, numbered);
      continue;
    }
    send(rec, c, i, 1, Outcome::kRateLimited, numbered);
    send(rec, c, 2 * kNsPerSec + i, 2, Outcome::kOk, numbered);
    rec.item_latency_ns.record(2 * kNsPerSec + i);
    rec.drain_ns = 2 * kNsPerSec + i;
  }
  (s == Situation::kNotExercised ? rec.dead_lettered : rec.delivered) = 4;
  if (!clients_recorded(c)) provider_stands_in_for_clients(rec);
  r.summary = summarize(rec, r.scenario.provider, r.provider_side);
  run.planned = metric_context(c.engine, r.scenario.provider, r.provider_side, c.provider_results);
  // run sets its arrivals against its own simulation (run_args.cpp); the others have none.
  run.planned.sim_comparison = std::string(c.engine) == "run";
  return run;
}

Came check(const std::string& metric, const Run& run) {
  // Every metric is at least 0: on its numbers, the check passes.
  const auto checks = gate_assertions({}, {metric + " >= 0"}, true, run.planned);
  if (!checks) return Came::kUsage;
  const auto verdicts = evaluate_gate(*checks, run.results, run.planned);
  REQUIRE(verdicts.size() == 1);
  if (verdicts[0].refused) return Came::kRefused;
  return verdicts[0].passed ? Came::kPassed : Came::kFailed;
}

// For one metric, per command (run, simulate, exec, gate), per situation (computable, not
// computable, not exercised).
using Outcomes = std::array<std::array<Came, 3>, 4>;
constexpr auto P = Came::kPassed, U = Came::kUsage, R = Came::kRefused, F = Came::kFailed;
constexpr std::array<Came, 3> kAlwaysComputed{P, P, P};
constexpr Outcomes kPlain{{kAlwaysComputed, kAlwaysComputed, kAlwaysComputed, kAlwaysComputed}};
// Measured against the allowance.
constexpr Outcomes kAgainstAllowance{{{P, U, P}, {P, U, P}, {P, U, P}, {P, U, P}}};
// An item latency or the drain: over no delivered item it fails.
constexpr Outcomes kDelivery{{{P, P, F}, {P, P, F}, {P, P, F}, {P, P, F}}};
// What only loadgen's own clients record: the answers that never came, their lateness.
constexpr Outcomes kClients{{kAlwaysComputed, kAlwaysComputed, {U, U, U}, {U, U, U}}};
// A retry metric: the clients number their sends; the provider only those it could attribute.
constexpr Outcomes kRetry{{{P, P, R}, {P, P, R}, {P, R, R}, {P, R, R}}};
constexpr Outcomes kRetryAgainstAllowance{{{P, U, R}, {P, U, R}, {P, U, R}, {P, U, R}}};
constexpr Outcomes kProviderView{{{P, U, P}, kAlwaysComputed, kAlwaysComputed, kAlwaysComputed}};
constexpr Outcomes kPerItem{{{U, U, U}, {U, U, U}, {P, R, R}, {P, R, R}}};
// A live run set against its own simulation: run (and merge, and gate of their documents).
constexpr Outcomes kSimComparison{{kAlwaysComputed, {U, U, U}, {U, U, U}, {U, U, U}}};

const std::map<std::string, Outcomes>& table() {
  static const std::map<std::string, Outcomes> t{
      {"items", kPlain},
      {"delivered", kPlain},
      {"dead_lettered", kPlain},
      {"unfinished", kPlain},
      {"requests", kPlain},
      {"peak_second", kPlain},
      {"peak_arrivals", kPlain},
      {"peak_ratio", kAgainstAllowance},
      {"drain_s", kDelivery},
      {"amplification", kPlain},
      {"p50_s", kDelivery},
      {"p99_s", kDelivery},
      {"attempts_p99", kPlain},  // the provider's per-item record, exec's: below
      {"lateness_p50_ms", kClients},
      {"lateness_p99_ms", kClients},
      {"writes", kPlain},
      {"p95_s", kDelivery},
      {"delivered_ratio", kPlain},
      {"dead_letter_ratio", kPlain},
      {"retries", kRetry},
      {"retry_share", kRetry},
      {"status_ratio_2xx", kPlain},
      {"status_ratio_4xx", kPlain},
      {"status_ratio_5xx", kPlain},
      {"status_ratio_429", kRetry},
      {"status_ratio_503", kRetry},
      {"status_ratio_529", kRetry},
      {"status_ratio_connect_error", kClients},
      {"status_ratio_timeout", kClients},
      {"status_ratio_bad_response", kClients},
      {"peak_retry_second", kRetry},
      {"peak_retries", kRetry},
      {"peak_retry_ratio", kRetryAgainstAllowance},
      {"provider_requests", kProviderView},
      {"hint_share", kPerItem},
      {"lockstep", kPerItem},
      {"dropped", kPlain},
      {"dropped_ratio", kPlain},
      {"sim_divergence", kSimComparison},
  };
  return t;
}

constexpr std::array<Command, 4> kCommands{kRun, kSimulate, kExec, kGate};
constexpr std::array<Situation, 3> kSituations{Situation::kComputable, Situation::kNotComputable,
                                               Situation::kNotExercised};
constexpr std::array<const char*, 3> kSituationNames{"computable", "not computable",
                                                     "not exercised"};

}  // namespace

TEST_CASE("every gated metric, in every command: computed, refused, or failed over nothing") {
  for (const auto& m : kMetrics) {
    const std::string metric(m.name);
    // A metric this table does not know (one added since) is held to the generic rule: the
    // same in every command and situation, computed.
    const auto row = table().find(metric);
    const Outcomes& expected = row == table().end() ? kPlain : row->second;
    for (std::size_t c = 0; c < kCommands.size(); ++c) {
      for (std::size_t s = 0; s < kSituations.size(); ++s) {
        CAPTURE(metric);
        CAPTURE(kCommands[c].name);
        CAPTURE(kSituationNames[s]);
        const Came came = check(metric, run_of(kCommands[c], kSituations[s]));
        CHECK_MESSAGE(came == expected[c][s], "came to ", name(came), ", expected ",
                      name(expected[c][s]));
      }
    }
  }
}

TEST_CASE("attempts_p99 needs each item's sends: the clients' record or the provider's") {
  const auto planned = [](bool provider_results) {
    return gate_assertions({}, {"attempts_p99 <= 3"}, true,
                           metric_context("exec", ProviderConfig{}, true, provider_results));
  };
  CHECK(planned(true));
  const auto without = planned(false);
  REQUIRE_FALSE(without);
  CHECK(without.error().find("attempts_p99 counts each item's sends") != std::string::npos);
  CHECK(gate_assertions({}, {"attempts_p99 <= 3"}, true,
                        metric_context("run", ProviderConfig{}, false)));
}

TEST_CASE("a refusal names why and what to do; a failure over nothing names why") {
  const auto why = [](const char* text, const Command& c, Situation s) {
    const Run run = run_of(c, s);
    const auto checks = gate_assertions({}, {text}, true, run.planned);
    REQUIRE(checks);
    return evaluate_gate(*checks, run.results, run.planned).at(0).why;
  };
  const auto unexercised = why("retry_share < 0.5", kSimulate, Situation::kNotExercised);
  CHECK(unexercised.find("retry_share is not exercised: the fleet never retried") !=
        std::string::npos);
  for (const char* remedy : {"--clients", "--allowance", "--outage"}) {
    CAPTURE(remedy);
    CHECK(unexercised.find(remedy) != std::string::npos);
  }
  const auto unnumbered = why("status_ratio_429 < 0.1", kExec, Situation::kNotComputable);
  CHECK(unnumbered.find("0 of 8 requests carry a send number") != std::string::npos);
  CHECK(unnumbered.find("X-Client-Id") != std::string::npos);
  const auto undelivered = why("p99_s <= 30s", kRun, Situation::kNotExercised);
  CHECK(undelivered.find("no item was delivered, so p99_s measures nothing") != std::string::npos);
  // Both sides of a check are held to it.
  CHECK(why("retries <= p99_s", kRun, Situation::kNotExercised).find("retries is not exercised") !=
        std::string::npos);
}

TEST_CASE("the verdicts' exit code: a refusal is a usage error, over any failure") {
  Verdict passed{"a", true, 0, 0, {}, false};
  Verdict failed{"b", false, 0, 0, {}, false};
  Verdict refused{"c", false, 0, 0, "not exercised", true};
  CHECK(gate_exit_code({}) == kExitOk);
  CHECK(gate_exit_code({passed}) == kExitOk);
  CHECK(gate_exit_code({passed, failed}) == kExitFailed);
  CHECK(gate_exit_code({failed, refused, passed}) == kExitUsage);
  CHECK(std::string(verdict_label(refused)) == "REFUSED");
}

TEST_CASE("a refused verdict stays refused through the results document") {
  Results r;
  r.verdicts = {{"retry_share < 0.5", false, 0, 0.5, "retry_share is not exercised", true},
                {"delivered > 0", true, 1, 0, {}, false}};
  const auto j = to_json(r);
  CHECK(j["assertions"][0]["refused"] == true);
  CHECK_FALSE(j["assertions"][1].contains("refused"));
  const auto back = results_from_json(j);
  REQUIRE_MESSAGE(back, back.error());
  CHECK(back->verdicts[0].refused);
  CHECK_FALSE(back->verdicts[1].refused);
}

TEST_CASE("the provider's numbering stands in for the clients': retries by attribution") {
  Recording r;
  for (int i = 0; i < 24; ++i) r.record_arrival(0, 1, Outcome::kRateLimited);
  for (int i = 0; i < 48; ++i) r.record_arrival(kNsPerSec, 2 + i % 3, Outcome::kOk);
  r.requests = 72;
  provider_stands_in_for_clients(r);
  const Summary s = summarize(r, ProviderConfig{}, true);
  CHECK(s.retries == 48);
  CHECK(s.retry_share == doctest::Approx(48.0 / 72));
  CHECK(s.status_ratio_429 == doctest::Approx(24.0 / 72));
  CHECK(s.peak_retries == 48);
}
