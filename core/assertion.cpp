#include "assertion.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "duration.hpp"
#include "nearest_name.hpp"

namespace stampede {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string metric_list() {
  std::string out;
  for (const auto& m : kMetrics) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

// As the help text lists them; parse_assertion reads the operator whole.
constexpr std::array<std::string_view, 6> kOps{"<", "<=", ">", ">=", "==", "!="};
constexpr std::string_view kOperatorList = "OP one of < <= > >= == !=";

std::vector<std::string> metric_names() {
  std::vector<std::string> names;
  for (const auto& m : kMetrics) names.emplace_back(m.name);
  return names;
}

std::optional<double> as_number(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// A time metric takes a duration as every duration flag does ("p99_s <= 30s", "drain_s < 2m"),
// in the metric's own unit; a bare number is in that unit too. Counts and ratios are numbers.
Parsed<double> parse_value(const std::string& metric, const std::string& rhs) {
  const auto plain = as_number(rhs);
  const auto unit_ns = metric_unit_ns(metric);
  // A word is a misspelt metric, not a duration: only what starts like a number is read as one.
  const auto digit = [&](std::size_t i) {
    return i < rhs.size() && std::isdigit(static_cast<unsigned char>(rhs[i]));
  };
  if (unit_ns != 0 && !plain && (digit(0) || (rhs.front() == '-' && digit(1)))) {
    const auto ns = parse_duration_ns(rhs);
    if (!ns) return Parsed<double>::fail(metric + " is a time: " + ns.error());
    return Parsed<double>::ok(static_cast<double>(*ns) / static_cast<double>(unit_ns));
  }
  if (!plain) {
    return Parsed<double>::fail(
        "'" + rhs + "' is neither a number nor a metric" +
        (unit_ns != 0 ? " nor a duration" : "; " + metric + " takes a plain number, no unit"));
  }
  // strtod also reads "nan" and "1e999": a comparison with them holds never or always.
  if (!std::isfinite(*plain)) return Parsed<double>::fail("'" + rhs + "' is not a finite number");
  return Parsed<double>::ok(*plain);
}

bool compare(double a, const std::string& op, double b) {
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "==") return a == b;
  return a != b;
}

}  // namespace

std::int64_t metric_unit_ns(std::string_view metric) {
  const auto ends_with = [&](std::string_view suffix) {
    return metric.size() > suffix.size() && metric.substr(metric.size() - suffix.size()) == suffix;
  };
  if (ends_with("_ms")) return kNsPerMs;
  if (ends_with("_s") || ends_with("_second")) return kNsPerSec;
  return 0;
}

Parsed<Assertion> parse_assertion(std::string_view text) {
  // A near metric name is the fix: then the metrics are not listed, only where they are.
  auto fail = [&](const std::string& why, bool list_metrics = true) {
    return Parsed<Assertion>::fail(
        "assertion '" + std::string(text) + "': " + why +
        "; expected METRIC OP VALUE, e.g. 'peak_ratio <= 2', with " + std::string(kOperatorList) +
        (list_metrics ? " and METRIC one of " + metric_list() : " (metrics: docs/RESULTS.md)"));
  };
  // The operator is the run of comparison characters after the metric, read whole, so that a
  // misspelt one ("=<") is named rather than half of it read as another.
  const auto at = text.find_first_of("<>=!");
  if (at == std::string_view::npos) return fail("no comparison operator");
  const auto op_end = std::min(text.find_first_not_of("<>=!", at), text.size());
  Assertion a{std::string(text),
              trim(text.substr(0, at)),
              std::string(text.substr(at, op_end - at)),
              {},
              0};
  if (std::find(kOps.begin(), kOps.end(), a.op) == kOps.end())
    return fail("'" + a.op + "' is not a comparison operator");
  if (!metric_value(Summary{}, a.metric)) {
    const auto near = did_you_mean(a.metric, metric_names());
    return fail("unknown metric '" + a.metric + "'" + near, near.empty());
  }
  const std::string rhs = trim(text.substr(op_end));
  if (rhs.empty()) return fail("nothing to compare with");
  if (metric_value(Summary{}, rhs)) {
    a.rhs_metric = rhs;
    return Parsed<Assertion>::ok(a);
  }
  auto value = parse_value(a.metric, rhs);
  if (!value) return fail(value.error());
  a.rhs_value = *value;
  return Parsed<Assertion>::ok(a);
}

Verdict evaluate(const Assertion& a, const Summary& s) {
  const double actual = *metric_value(s, a.metric);
  const double expected = a.rhs_metric.empty() ? a.rhs_value : *metric_value(s, a.rhs_metric);
  return Verdict{a.text, compare(actual, a.op, expected), actual, expected, {}, false};
}

}  // namespace stampede

namespace stampede {

const char* verdict_label(const Verdict& v) {
  if (v.passed) return "PASS";
  return v.refused ? "REFUSED" : "FAIL";
}

bool same_check(const Assertion& a, const Assertion& b) {
  return a.metric == b.metric && a.op == b.op && a.rhs_metric == b.rhs_metric &&
         a.rhs_value == b.rhs_value;
}

Parsed<std::vector<Assertion>> parse_assertions(const std::vector<std::string>& texts) {
  std::vector<Assertion> list;
  for (const auto& t : texts) {
    auto a = parse_assertion(t);
    if (!a) return Parsed<std::vector<Assertion>>::fail(a.error());
    const auto seen = [&](const Assertion& b) { return same_check(*a, b); };
    if (std::none_of(list.begin(), list.end(), seen)) list.push_back(*a);
  }
  return Parsed<std::vector<Assertion>>::ok(std::move(list));
}

std::vector<Verdict> evaluate_all(const std::vector<Assertion>& list, const Summary& s) {
  std::vector<Verdict> out;
  for (const auto& a : list) out.push_back(evaluate(a, s));
  return out;
}

}  // namespace stampede
