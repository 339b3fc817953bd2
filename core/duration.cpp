#include "duration.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace stampede {
namespace {

constexpr std::array<std::pair<std::string_view, std::int64_t>, 8> kUnits{{
    {"ns", 1},
    {"us", 1'000},
    {"ms", kNsPerMs},
    {"s", kNsPerSec},
    {"m", 60 * kNsPerSec},
    {"min", 60 * kNsPerSec},
    {"h", 3600 * kNsPerSec},
    {"d", 86400 * kNsPerSec},
}};

constexpr std::string_view kAccepted = "a number and a unit: ns, us, ms, s, m, h (e.g. 250ms, 30s)";

}  // namespace

Parsed<std::int64_t> parse_duration_ns(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return Parsed<std::int64_t>::fail("'" + std::string(text) + "' is not a duration (" + why +
                                      "); expected " + std::string(kAccepted));
  };
  // "-1s" has a number: say what is wrong with it, not that it has none.
  if (!text.empty() && text.front() == '-') return fail("negative");
  std::size_t i = 0;
  std::int64_t whole = 0;
  bool digits = false;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (whole > (INT64_MAX - 9) / 10) return fail("too large");
    whole = whole * 10 + (text[i] - '0');
    digits = true;
    ++i;
  }
  double fraction = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    double scale = 0.1;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      fraction += (text[i] - '0') * scale;
      scale /= 10;
      digits = true;
      ++i;
    }
  }
  if (!digits) return fail(text.empty() ? "empty" : "no number");
  const std::string_view unit = text.substr(i);
  if (unit.empty()) return fail("no unit");
  for (const auto& [name, factor] : kUnits) {
    if (unit != name) continue;
    const auto frac_ns =
        static_cast<std::int64_t>(std::llround(fraction * static_cast<double>(factor)));
    // frac_ns <= factor: the bound is exact, so the largest duration spells back to itself.
    if (whole > (INT64_MAX - frac_ns) / factor) return fail("too large");
    return Parsed<std::int64_t>::ok(whole * factor + frac_ns);
  }
  return fail("unknown unit '" + std::string(unit) + "'");
}

namespace {

// exact: the text parses back to the same nanoseconds; otherwise the largest unit, to a
// thousandth of it, for a person ("16.768ms", not "16768.952us").
std::string spell_duration(std::int64_t ns, bool exact) {
  const std::int64_t mag = ns < 0 ? -ns : ns;
  if (mag == 0) return "0s";
  // Hours and minutes only when whole; otherwise the largest unit that spells the value
  // exactly in at most three decimals, so the text parses back to the same nanoseconds.
  struct Unit {
    std::int64_t ns;
    const char* name;
    bool whole_only;
  };
  constexpr std::array<Unit, 5> kFormatUnits{{{3600 * kNsPerSec, "h", true},
                                              {60 * kNsPerSec, "m", true},
                                              {kNsPerSec, "s", false},
                                              {kNsPerMs, "ms", false},
                                              {1'000, "us", false}}};
  Unit unit{1, "ns", true};
  for (const auto& u : kFormatUnits) {
    if (mag >= u.ns && (u.whole_only ? mag % u.ns == 0 : !exact || mag % (u.ns / 1000) == 0)) {
      unit = u;
      break;
    }
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%lld", ns < 0 ? "-" : "",
                static_cast<long long>(mag / unit.ns));
  std::string text = buf;
  const std::int64_t thousandths = mag % unit.ns * 1000 / unit.ns;
  if (thousandths != 0) {
    std::snprintf(buf, sizeof buf, ".%03lld", static_cast<long long>(thousandths));
    std::string fraction = buf;
    while (fraction.back() == '0') fraction.pop_back();
    text += fraction;
  }
  return text + unit.name;
}

}  // namespace

std::string format_duration(std::int64_t ns) {
  return spell_duration(ns, true);
}

std::string format_duration_rounded(std::int64_t ns) {
  return spell_duration(ns, false);
}

}  // namespace stampede
