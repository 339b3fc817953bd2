#include <doctest/doctest.h>

#include "assertion.hpp"

using namespace stampede;

namespace {

Summary sample() {
  Summary s;
  s.items = 1000;
  s.delivered = 1000;
  s.dead_lettered = 0;
  s.requests = 7500;
  s.peak_ratio = 2;
  s.drain_s = 88.5;
  return s;
}

}  // namespace

TEST_CASE("assertions parse into metric, operator and right side") {
  struct Row {
    const char* text;
    const char* metric;
    const char* op;
    const char* rhs_metric;
    double rhs_value;
  };
  for (const Row& r : {Row{"peak_ratio <= 2", "peak_ratio", "<=", "", 2},
                       Row{"requests<10000", "requests", "<", "", 10000},
                       Row{"  drain_s   >=  1.5 ", "drain_s", ">=", "", 1.5},
                       Row{"p99_s > -0.5", "p99_s", ">", "", -0.5},
                       Row{"dead_lettered == 0", "dead_lettered", "==", "", 0},
                       Row{"unfinished != 1e3", "unfinished", "!=", "", 1000},
                       Row{"delivered == items", "delivered", "==", "items", 0},
                       Row{"requests <= items", "requests", "<=", "items", 0}}) {
    CAPTURE(r.text);
    const auto a = parse_assertion(r.text);
    REQUIRE(a);
    CHECK(a->text == r.text);
    CHECK(a->metric == r.metric);
    CHECK(a->op == r.op);
    CHECK(a->rhs_metric == r.rhs_metric);
    CHECK(a->rhs_value == r.rhs_value);
  }
}

TEST_CASE("every operator evaluates against the summary") {
  struct Row {
    const char* text;
    bool passes;
    double actual;
    double expected;
  };
  for (const Row& r : {
           Row{"peak_ratio <= 2", true, 2, 2},
           Row{"peak_ratio <= 1.99", false, 2, 1.99},
           Row{"peak_ratio < 2", false, 2, 2},
           Row{"peak_ratio < 2.01", true, 2, 2.01},
           Row{"peak_ratio >= 2", true, 2, 2},
           Row{"peak_ratio >= 2.01", false, 2, 2.01},
           Row{"peak_ratio > 2", false, 2, 2},
           Row{"peak_ratio > 1", true, 2, 1},
           Row{"peak_ratio == 2", true, 2, 2},
           Row{"peak_ratio == 3", false, 2, 3},
           Row{"peak_ratio != 3", true, 2, 3},
           Row{"peak_ratio != 2", false, 2, 2},
           Row{"delivered == items", true, 1000, 1000},
           Row{"requests < items", false, 7500, 1000},
           Row{"dead_lettered < delivered", true, 0, 1000},
           Row{"drain_s <= 120", true, 88.5, 120},
       }) {
    CAPTURE(r.text);
    const auto a = parse_assertion(r.text);
    REQUIRE(a);
    const auto v = evaluate(*a, sample());
    CHECK(v.passed == r.passes);
    CHECK(v.actual == r.actual);
    CHECK(v.expected == r.expected);
    CHECK(v.text == r.text);
  }
}

TEST_CASE("unknown metrics and garbage are refused with what is accepted") {
  struct Row {
    const char* text;
    const char* names;  // what the error must quote
  };
  for (const Row& r :
       {Row{"bogus_metric < 1", "'bogus_metric'"}, Row{"peak_ratio <= bogus", "'bogus'"},
        Row{"peak_ratio <= 2x", "'2x'"}, Row{"peak_ratio <=", "nothing to compare"},
        Row{"<= 2", "unknown metric ''"}, Row{"peak_ratio", "no comparison operator"},
        Row{"", "no comparison operator"}}) {
    CAPTURE(r.text);
    const auto a = parse_assertion(r.text);
    REQUIRE_FALSE(a);
    CHECK(a.error().find(r.names) != std::string::npos);
    CHECK(a.error().find("expected METRIC OP VALUE") != std::string::npos);
    CHECK(a.error().find("peak_ratio, drain_s") != std::string::npos);
  }
}

TEST_CASE("a misspelt metric gets the nearest name instead of the list of every metric") {
  struct Row {
    const char* text;
    const char* suggestion;
  };
  for (const Row& r :
       {Row{"Peak_Ratio <= 2", "did you mean 'peak_ratio'?"},
        Row{"p99 <= 30s", "did you mean 'p99_s'?"}, Row{"drain <= 120", "did you mean 'drain_s'?"},
        Row{"peak_retry_ration <= 2", "did you mean 'peak_retry_ratio'?"},
        Row{"delivered == itmes", "'itmes'"}}) {
    CAPTURE(r.text);
    const auto a = parse_assertion(r.text);
    REQUIRE_FALSE(a);
    CHECK(a.error().find(r.suggestion) != std::string::npos);
  }
  const auto a = parse_assertion("p99 <= 30s");
  REQUIRE_FALSE(a);
  CHECK(a.error().find("peak_ratio, drain_s") == std::string::npos);
  CHECK(a.error().find("docs/RESULTS.md") != std::string::npos);
}

TEST_CASE("a misspelt operator is named, with the operators there are") {
  for (const char* text : {"peak_ratio =< 2", "peak_ratio => 2", "peak_ratio = 2",
                           "peak_ratio <> 2", "peak_ratio === 2", "peak_ratio ! 2"}) {
    CAPTURE(text);
    const auto a = parse_assertion(text);
    REQUIRE_FALSE(a);
    const std::string op = std::string(text).substr(11, std::string(text).find(' ', 11) - 11);
    CHECK(a.error().find("'" + op + "' is not a comparison operator") != std::string::npos);
    CHECK(a.error().find("OP one of < <= > >= == !=") != std::string::npos);
    CHECK(a.error().find("unknown metric") == std::string::npos);
  }
}

TEST_CASE("a time metric takes a duration with its unit, in the metric's own unit") {
  struct Row {
    const char* text;
    double value;
  };
  for (const Row& r : {Row{"p99_s <= 30s", 30}, Row{"drain_s < 2m", 120},
                       Row{"p50_s <= 500ms", 0.5}, Row{"p99_s <= 30", 30},
                       Row{"lateness_p99_ms < 1s", 1000}, Row{"lateness_p50_ms < 250us", 0.25},
                       Row{"peak_second >= 31s", 31}, Row{"peak_retry_second < 1.5min", 90}}) {
    CAPTURE(r.text);
    const auto a = parse_assertion(r.text);
    REQUIRE(a);
    CHECK(a->rhs_value == doctest::Approx(r.value));
  }
  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b :
       {Bad{"p99_s <= 30sec", "p99_s is a time: '30sec' is not a duration (unknown unit 'sec')"},
        Bad{"p99_s <= -1s", "'-1s' is not a duration (negative)"},
        Bad{"p99_s <= soon", "'soon' is neither a number nor a metric nor a duration"},
        Bad{"peak_ratio <= 2s", "peak_ratio takes a plain number, no unit"},
        Bad{"requests < 10k", "requests takes a plain number, no unit"}}) {
    CAPTURE(b.text);
    const auto a = parse_assertion(b.text);
    REQUIRE_FALSE(a);
    CHECK(a.error().find(b.says) != std::string::npos);
  }
}

TEST_CASE("a list of assertions parses whole or names its first bad one") {
  const auto ok = parse_assertions({"peak_ratio <= 2", "delivered == items"});
  REQUIRE(ok);
  CHECK(ok->size() == 2);
  const auto verdicts = evaluate_all(*ok, sample());
  REQUIRE(verdicts.size() == 2);
  CHECK(verdicts[0].passed);
  CHECK(verdicts[1].passed);
  const auto bad = parse_assertions({"peak_ratio <= 2", "nope > 1", "also_bad < 2"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("'nope'") != std::string::npos);
}
