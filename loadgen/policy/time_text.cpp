#include "policy/time_text.hpp"

#include <array>
#include <charconv>
#include <limits>

#include "civil_date.hpp"
#include "duration.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// Not std::isdigit: no locale, and inline, as a trace's ten million times ask.
bool digit(char c) {
  return c >= '0' && c <= '9';
}

// Exactly `width` digits (or any number when width is 0), nothing else.
std::optional<std::int64_t> digits(std::string_view text, std::size_t width = 0) {
  if (text.empty() || (width && text.size() != width) || text.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  for (const char c : text) {
    if (!digit(c)) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// ".25" -> 250'000'000: digits after a decimal point as nanoseconds (beyond 9 digits ignored).
std::optional<std::int64_t> fraction_ns(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t ns = 0;
  std::int64_t scale = kNsPerSec;
  for (const char c : text) {
    if (!digit(c)) return std::nullopt;
    scale /= 10;
    ns += (c - '0') * scale;
  }
  return ns;
}

struct Civil {
  std::int64_t year, month, day, hour, minute, second;
};

std::optional<std::int64_t> civil_ns(const Civil& c, std::int64_t offset_s, std::int64_t frac) {
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > 31 || c.hour > 23 || c.minute > 59 ||
      c.second > 60)
    return std::nullopt;
  const std::int64_t seconds =
      days_from_civil(c.year, static_cast<unsigned>(c.month), static_cast<unsigned>(c.day)) *
          86400 +
      c.hour * 3600 + c.minute * 60 + c.second - offset_s;
  // Years up to 9999 parse; nanoseconds since the epoch end in 2262.
  return saturating_add(saturating_mul(seconds, kNsPerSec), frac);
}

// "+hh:mm" / "-hhmm" (colon as given), as seconds east of UTC.
std::optional<std::int64_t> zone_offset_s(std::string_view text, bool colon) {
  if (text.size() != (colon ? 6u : 5u) || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  if (colon && text[3] != ':') return std::nullopt;
  const auto h = digits(text.substr(1, 2), 2);
  const auto m = digits(text.substr(colon ? 4 : 3, 2), 2);
  if (!h || !m) return std::nullopt;
  return (*h * 3600 + *m * 60) * (text[0] == '-' ? -1 : 1);
}

}  // namespace

std::optional<std::int64_t> rfc3339_ns(std::string_view t) {
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || t[13] != ':' || t[16] != ':' ||
      (t[10] != 'T' && t[10] != 't' && t[10] != ' '))
    return std::nullopt;
  const auto y = digits(t.substr(0, 4), 4), mo = digits(t.substr(5, 2), 2),
             d = digits(t.substr(8, 2), 2), h = digits(t.substr(11, 2), 2),
             mi = digits(t.substr(14, 2), 2), s = digits(t.substr(17, 2), 2);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  std::string_view rest = t.substr(19);
  std::int64_t frac = 0;
  if (rest.front() == '.') {
    std::size_t n = 1;
    while (n < rest.size() && digit(rest[n])) ++n;
    const auto f = fraction_ns(rest.substr(1, n - 1));
    if (!f) return std::nullopt;
    frac = *f;
    rest.remove_prefix(n);
  }
  std::optional<std::int64_t> offset = 0;
  if (rest != "Z" && rest != "z") offset = zone_offset_s(rest, true);
  if (!offset) return std::nullopt;
  return civil_ns({*y, *mo, *d, *h, *mi, *s}, *offset, frac);
}

std::optional<std::int64_t> decimal_seconds_ns(std::string_view text) {
  const auto dot = text.find('.');
  const auto seconds = digits(text.substr(0, dot));
  std::optional<std::int64_t> fraction = 0;
  if (dot != std::string_view::npos) fraction = fraction_ns(text.substr(dot + 1));
  if (!seconds || !fraction || *seconds > std::numeric_limits<std::int64_t>::max() / kNsPerSec - 1)
    return std::nullopt;
  return *seconds * kNsPerSec + *fraction;
}

std::optional<std::int64_t> clf_time_ns(std::string_view t) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (t.size() != 26 || t[2] != '/' || t[6] != '/' || t[11] != ':' || t[14] != ':' ||
      t[17] != ':' || t[20] != ' ')
    return std::nullopt;
  std::int64_t month = 0;
  for (std::size_t i = 0; i < kMonths.size(); ++i)
    if (t.substr(3, 3) == kMonths[i]) month = static_cast<std::int64_t>(i) + 1;
  const auto d = digits(t.substr(0, 2), 2), y = digits(t.substr(7, 4), 4),
             h = digits(t.substr(12, 2), 2), mi = digits(t.substr(15, 2), 2),
             s = digits(t.substr(18, 2), 2);
  const auto offset = zone_offset_s(t.substr(21), false);
  if (!month || !d || !y || !h || !mi || !s || !offset) return std::nullopt;
  return civil_ns({*y, month, *d, *h, *mi, *s}, *offset, 0);
}

}  // namespace stampede
