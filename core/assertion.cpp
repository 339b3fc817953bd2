#include "assertion.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

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

bool compare(double a, const std::string& op, double b) {
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "==") return a == b;
  return a != b;
}

}  // namespace

Parsed<Assertion> parse_assertion(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return Parsed<Assertion>::fail(
        "assertion '" + std::string(text) + "': " + why +
        "; expected METRIC OP VALUE, e.g. 'peak_ratio <= 2', with OP one "
        "of < <= > >= == != and METRIC one of " +
        metric_list());
  };
  // Longest operators first, so "<=" is not read as "<".
  static constexpr std::array<std::string_view, 6> kOps{"<=", ">=", "==", "!=", "<", ">"};
  for (const auto op : kOps) {
    const auto at = text.find(op);
    if (at == std::string_view::npos) continue;
    Assertion a{std::string(text), trim(text.substr(0, at)), std::string(op), {}, 0};
    if (!metric_value(Summary{}, a.metric)) return fail("unknown metric '" + a.metric + "'");
    const std::string rhs = trim(text.substr(at + op.size()));
    if (rhs.empty()) return fail("nothing to compare with");
    if (metric_value(Summary{}, rhs)) {
      a.rhs_metric = rhs;
      return Parsed<Assertion>::ok(a);
    }
    char* end = nullptr;
    a.rhs_value = std::strtod(rhs.c_str(), &end);
    if (end != rhs.c_str() + rhs.size())
      return fail("'" + rhs + "' is neither a number nor a metric");
    // strtod also reads "nan" and "1e999": a comparison with them holds never or always.
    if (!std::isfinite(a.rhs_value)) return fail("'" + rhs + "' is not a finite number");
    return Parsed<Assertion>::ok(a);
  }
  return fail("no comparison operator");
}

Verdict evaluate(const Assertion& a, const Summary& s) {
  const double actual = *metric_value(s, a.metric);
  const double expected = a.rhs_metric.empty() ? a.rhs_value : *metric_value(s, a.rhs_metric);
  return Verdict{a.text, compare(actual, a.op, expected), actual, expected, {}};
}

}  // namespace stampede

namespace stampede {

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
