// The advice the report carries for a failed check (reports/check_advice.hpp): docs/READING.md's,
// by metric, and how far each check missed.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "check_advice.hpp"
#include "report_test_support.hpp"
#include "summary.hpp"
#include "support/files.hpp"
#include "support/process.hpp"

using namespace stampede;
using namespace support;

TEST_CASE("advice: each gated metric of the reading guide gets its advice") {
  struct Row {
    const char* metric;
    const char* topic;   // in the topic
    const char* change;  // in what to change
  };
  const std::vector<Row> rows{
      {"peak_ratio", "the herd", "--strategy full-jitter"},
      {"peak_retry_ratio", "the herd", "loadgen advise"},
      {"lockstep", "the herd", "--retry-after jittered"},
      {"drain_s", "drains slowly", "Jitter first"},
      {"dead_letter_ratio", "given up", "--max-attempts"},
      {"dead_lettered", "given up", "outlast the outage"},
      {"delivered", "not delivered", "a 404 to every request is the URL"},
      {"amplification", "requests per item", "--retry-budget"},
      {"requests", "requests per item", "a larger --base"},
      {"unfinished", "still going", "--max-duration"},
      {"p99_s", "slow items", "a large --base"},
      {"p95_s", "slow items", "jitter first"},
      {"status_ratio_503", "failing", "--breaker"},
      {"hint_share", "Retry-After", "--retry-after jittered"},
      {"sim_divergence", "the harness", "--time-scale nearer 1"},
      {"status_ratio_connect_error", "the harness", "--max-connections"},
      {"status_ratio_timeout", "timeout", "--timeout"},
      // Nothing in the guide: the metric's meaning, never an empty advice.
      {"writes", "writes: occ mode", "No retry setting"},
      {"bogus_metric", "does not know", "not one of this version's"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.metric);
    const auto advice = advice_for(row.metric);
    CHECK(advice.topic.find(row.topic) != std::string::npos);
    CHECK(advice.change.find(row.change) != std::string::npos);
  }
  for (const auto& m : kMetrics) {
    CAPTURE(m.name);
    CHECK_FALSE(advice_for(m.name).change.empty());
  }
}

TEST_CASE("advice: a fleet that jitters already is not told to add jitter") {
  struct Row {
    const char* metric;
    FleetJitter jitter;
    bool says_add_jitter;
  };
  const std::vector<Row> rows{
      {"peak_ratio", FleetJitter::kNone, true},     {"peak_ratio", FleetJitter::kUnknown, true},
      {"peak_ratio", FleetJitter::kJitters, false}, {"drain_s", FleetJitter::kNone, true},
      {"drain_s", FleetJitter::kJitters, false},    {"lockstep", FleetJitter::kJitters, false},
  };
  for (const auto& row : rows) {
    CAPTURE(row.metric);
    CAPTURE(static_cast<int>(row.jitter));
    const auto change = advice_for(row.metric, row.jitter).change;
    const bool says = change.find("Add jitter") != std::string::npos ||
                      change.find("Jitter first") != std::string::npos;
    CHECK(says == row.says_add_jitter);
    // What it is told instead is still the rest of the advice.
    CHECK(change.find("--base") != std::string::npos);
  }
  Results exponential;
  exponential.engine = "run";
  exponential.scenario.fleet.strategy = StrategyKind::kExponential;
  CHECK(fleet_jitter(exponential) == FleetJitter::kNone);
  Results jittered = exponential;
  jittered.scenario.fleet.strategy = StrategyKind::kDecorrelatedJitter;
  CHECK(fleet_jitter(jittered) == FleetJitter::kJitters);
  Results exec = jittered;
  exec.engine = "exec";  // the program's own strategy, whatever the scenario says
  CHECK(fleet_jitter(exec) == FleetJitter::kUnknown);
}

TEST_CASE("advice: every flag it names is loadgen's, and the reading guide's") {
  std::set<std::string> named;
  for (const auto& m : kMetrics) {
    const auto flags = report_test::flags_in(advice_for(m.name).change);
    named.insert(flags.begin(), flags.end());
  }
  REQUIRE(named.size() > 10);
  const auto help = run_binary("loadgen", {"run", "--help"}).out;
  const auto guide = read_file(source_path("docs/READING.md"));
  for (const auto& f : named) {
    CAPTURE(f);
    // fakeprovider's own flags, named for a harness short of connections.
    if (f != "--processes" && f != "--max-connections") CHECK(help.find(f) != std::string::npos);
    CHECK(guide.find(f) != std::string::npos);
  }
}

TEST_CASE("advice: how far a failed check missed, in its metric's unit") {
  struct Row {
    Verdict verdict;
    const char* says;
  };
  const std::vector<Row> rows{
      {{"peak_ratio <= 2", false, 10, 2, {}}, "measured 10, needs <= 2: 5\u00d7 the limit"},
      {{"drain_s <= 120", false, 543, 120, {}},
       "measured 543 s, needs <= 120 s: 4.53\u00d7 the limit"},
      {{"requests < 10000", false, 10500, 10000, {}},
       "measured 10,500, needs < 10,000: 500 over (5%)"},
      {{"requests < 10000", false, 10000, 10000, {}},
       "measured 10,000, needs < 10,000: at the limit, which the check excludes"},
      {{"delivered == items", false, 990, 1000, {}},
       "measured 990, needs == items (1,000): off by 10"},
      {{"delivered_ratio >= 0.99", false, 0.9, 0.99, {}},
       "measured 0.9, needs >= 0.99: 0.09 short (90.9% of it)"},
      {{"lateness_p99_ms < 5", false, 12, 5, {}},
       "measured 12 ms, needs < 5 ms: 2.4\u00d7 the limit"},
      {{"dead_lettered != 3", false, 3, 3, {}}, "measured 3, needs != 3: equal to it"},
      {{"delivered > 0", false, 0, 0, "no item was delivered: every answer was 404"},
       "measured 0, needs > 0: at the limit, which the check excludes. no item was delivered: "
       "every answer was 404"},
      {{"peak_retry_ratio <= 2", false, 0, 2, "the fleet never retried", true},
       "not judged: the fleet never retried"},
      {{"not a check", false, 3, 0, {}}, "measured 3"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.verdict.text);
    CHECK(miss_text(row.verdict) == row.says);
  }
  CHECK(checked_metric("peak_ratio <= 2") == "peak_ratio");
  CHECK(checked_metric("delivered == items") == "delivered");
  CHECK(checked_metric("<script>") == "");
}

TEST_CASE("advice: a check given twice is shown once, with its first verdict") {
  const auto shown = distinct_verdicts({{"peak_ratio <= 2", true, 0.5, 2, {}},
                                        {"drain_s <= 120", false, 130, 120, {}},
                                        {"peak_ratio <= 2", false, 5, 2, {}}});
  REQUIRE(shown.size() == 2);
  CHECK(shown[0].text == "peak_ratio <= 2");
  CHECK(shown[0].passed);
  CHECK(shown[1].text == "drain_s <= 120");
}
