#include "report_format.hpp"

#include <cmath>
#include <cstdio>

namespace stampede {
namespace {

std::string printf_string(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string grouped(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// Beyond this llround's result is unspecified: such a value (a results file can hold any)
// is printed in exponent form instead.
constexpr double kLargestGrouped = 9e18;

}  // namespace

std::string format_count(double v) {
  if (!std::isfinite(v)) return "-";
  if (std::fabs(v) >= kLargestGrouped) return printf_string("%.3g", v);
  if (v == std::round(v) && std::fabs(v) < 1e15) return grouped(std::llround(v));
  if (std::fabs(v) >= 1000) return grouped(std::llround(v));
  return printf_string("%.3g", v);
}

std::string format_tick(double v) {
  const double a = std::fabs(v);
  if (a >= 1e6) return printf_string("%gM", v / 1e6);
  if (a >= 1e4) return printf_string("%gk", v / 1e3);
  return format_general(v);
}

std::string format_general(double v) {
  return printf_string("%g", v);
}

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "-";
  if (s != 0 && std::fabs(s) < 1) return printf_string("%.3g ms", s * 1000);
  if (std::fabs(s) >= kLargestGrouped) return printf_string("%.3g s", s);
  if (std::fabs(s) >= 1000) return grouped(std::llround(s)) + " s";
  return printf_string("%.3g s", s);
}

}  // namespace stampede
