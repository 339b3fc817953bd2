#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"
#include "summary.hpp"

namespace stampede {

// "peak_ratio <= 2", "delivered == items": a metric, a comparison, a number or a metric.
struct Assertion {
  std::string text;
  std::string metric;
  std::string op;          // < <= > >= == !=
  std::string rhs_metric;  // empty when the right side is a number
  double rhs_value = 0;
};

struct Verdict {
  std::string text;
  bool passed = false;
  double actual = 0;
  double expected = 0;
  std::string why;  // a failed one's explanation beyond the numbers, one line; often empty
  // The finished run cannot judge it (core/gate.hpp): its metric could not be computed, or the
  // run never exercised it. Not passed, and a usage error rather than a failed fleet.
  bool refused = false;
};

// "PASS", "FAIL", or "REFUSED" (the run could not judge it), as every command prints it.
const char* verdict_label(const Verdict& v);

// The same metric, operator and right side: one check, however it is spelled.
bool same_check(const Assertion& a, const Assertion& b);

// A metric's unit of time in nanoseconds (*_s and *_second: seconds, *_ms: milliseconds), or 0
// for a count or a ratio: what a duration on the right of an assertion is converted to.
std::int64_t metric_unit_ns(std::string_view metric);

Parsed<Assertion> parse_assertion(std::string_view text);
Verdict evaluate(const Assertion& a, const Summary& s);

// Every expression parsed, or the first error. A check given twice (a scenario's expectation
// repeated by --assert) is kept once, with its first spelling.
Parsed<std::vector<Assertion>> parse_assertions(const std::vector<std::string>& texts);
std::vector<Verdict> evaluate_all(const std::vector<Assertion>& list, const Summary& s);

}  // namespace stampede
