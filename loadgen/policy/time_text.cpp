#include "policy/time_text.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>

#include "civil_date.hpp"
#include "duration.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// The eight ASCII digits at `p` as a number, or -1 when one is not a digit: a word at a time
// (checked and combined in pairs, fours, then eights), where a byte at a time costs a
// compare and a multiply each. A little-endian word: the first digit in its lowest byte.
std::int64_t eight_digits(const char* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101, kHighNibbles = kOnes * 0xF0;
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  // A digit is 0x30..0x39: its high nibble 3, and still 3 once 6 is added (0x3A..0x3F: 4).
  if ((w & kHighNibbles) != kOnes * 0x30 || ((w + kOnes * 6) & kHighNibbles) != kOnes * 0x30)
    return -1;
  w -= kOnes * '0';
  w = w * 10 + (w >> 8);  // each even byte: two digits' value
  constexpr std::uint64_t kPairs = 0x000000FF000000FF;
  w = ((w & kPairs) * (100 + (1000000ULL << 32)) + ((w >> 16) & kPairs) * (1 + (10000ULL << 32))) >>
      32;
  return static_cast<std::int64_t>(w);
}

// The `width` digits at `at` as a number, or -1 when one is not a digit. Plain, not an
// optional per group: a trace's ten million times read a dozen groups each.
std::int64_t digits_at(std::string_view text, std::size_t at, std::size_t width) {
  std::int64_t v = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (!ascii_digit(text[i])) return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

// "25" (after a decimal point) -> 250'000'000 (beyond 9 digits ignored); -1 when empty or
// not all digits. The digits read as a number, then scaled once: no division per digit.
std::int64_t fraction_ns(std::string_view text) {
  static constexpr std::array<std::int64_t, 10> kScale = {
      1'000'000'000, 100'000'000, 10'000'000, 1'000'000, 100'000, 10'000, 1'000, 100, 10, 1};
  if (text.empty()) return -1;
  const std::size_t read = std::min<std::size_t>(text.size(), 9);
  std::int64_t v = 0;
  for (std::size_t i = 0; i < read; ++i) {
    if (!ascii_digit(text[i])) return -1;
    v = v * 10 + (text[i] - '0');
  }
  for (std::size_t i = read; i < text.size(); ++i)
    if (!ascii_digit(text[i])) return -1;
  return v * kScale[read];
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
  const auto h = digits_at(text, 1, 2);
  const auto m = digits_at(text, colon ? 4 : 3, 2);
  if (h < 0 || m < 0) return std::nullopt;
  return (h * 3600 + m * 60) * (text[0] == '-' ? -1 : 1);
}

}  // namespace

std::optional<std::int64_t> rfc3339_ns(std::string_view t) {
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || t[13] != ':' || t[16] != ':' ||
      (t[10] != 'T' && t[10] != 't' && t[10] != ' '))
    return std::nullopt;
  const Civil c{digits_at(t, 0, 4),  digits_at(t, 5, 2),  digits_at(t, 8, 2),
                digits_at(t, 11, 2), digits_at(t, 14, 2), digits_at(t, 17, 2)};
  if ((c.year | c.month | c.day | c.hour | c.minute | c.second) < 0) return std::nullopt;
  std::string_view rest = t.substr(19);
  std::int64_t frac = 0;
  if (rest.front() == '.') {
    std::size_t n = 1;
    while (n < rest.size() && ascii_digit(rest[n])) ++n;
    frac = fraction_ns(rest.substr(1, n - 1));
    if (frac < 0) return std::nullopt;
    rest.remove_prefix(n);
  }
  std::optional<std::int64_t> offset = 0;
  if (rest != "Z" && rest != "z") offset = zone_offset_s(rest, true);
  if (!offset) return std::nullopt;
  return civil_ns(c, *offset, frac);
}

// One pass over the text: the whole seconds' digits, then a '.' and the fraction's.
std::optional<std::int64_t> decimal_seconds_ns(std::string_view text) {
  // More whole digits than this and the seconds are past 2262 in nanoseconds anyway.
  constexpr std::size_t kMaxWhole = 18;
  // One digit more is read, for the check, and fits unsigned.
  const std::size_t limit = std::min(text.size(), kMaxWhole + 1);
  std::size_t i = 0;
  std::uint64_t whole = 0;
  // Epoch seconds have ten digits: the first eight read as one word.
  if constexpr (std::endian::native == std::endian::little) {
    if (const auto first = text.size() >= 8 ? eight_digits(text.data()) : -1; first >= 0) {
      whole = static_cast<std::uint64_t>(first);
      i = 8;
    }
  }
  for (; i < limit && ascii_digit(text[i]); ++i) whole = whole * 10 + (text[i] - '0');
  constexpr auto kMaxSeconds =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / kNsPerSec - 1);
  if (i == 0 || i > kMaxWhole || whole > kMaxSeconds) return std::nullopt;
  const auto seconds = static_cast<std::int64_t>(whole);
  std::int64_t fraction = 0;
  if (i < text.size()) {
    if (text[i] != '.') return std::nullopt;
    fraction = fraction_ns(text.substr(i + 1));
    if (fraction < 0) return std::nullopt;
  }
  return seconds * kNsPerSec + fraction;
}

std::optional<std::int64_t> clf_time_ns(std::string_view t) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (t.size() != 26 || t[2] != '/' || t[6] != '/' || t[11] != ':' || t[14] != ':' ||
      t[17] != ':' || t[20] != ' ')
    return std::nullopt;
  // Compared a byte at a time: three bytes, where a string compare costs a call to memcmp.
  std::int64_t month = 0;
  for (std::size_t i = 0; i < kMonths.size() && !month; ++i)
    if (t[3] == kMonths[i][0] && t[4] == kMonths[i][1] && t[5] == kMonths[i][2])
      month = static_cast<std::int64_t>(i) + 1;
  const Civil c{digits_at(t, 7, 4),  month,
                digits_at(t, 0, 2),  digits_at(t, 12, 2),
                digits_at(t, 15, 2), digits_at(t, 18, 2)};
  const auto offset = zone_offset_s(t.substr(21), false);
  if (!month || (c.year | c.day | c.hour | c.minute | c.second) < 0 || !offset) return std::nullopt;
  return civil_ns(c, *offset, 0);
}

}  // namespace stampede
