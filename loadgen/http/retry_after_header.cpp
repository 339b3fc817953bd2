#include "http/retry_after_header.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "civil_date.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kNsPerSecond = 1'000'000'000;
constexpr std::array<std::string_view, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<std::string_view, 7> kDays{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kLongDays{"Monday", "Tuesday",  "Wednesday", "Thursday",
                                                    "Friday", "Saturday", "Sunday"};

std::string_view trim_header_value(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

// A cursor over the text; every take_* consumes on success only.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  bool done() const { return s_.empty(); }

  bool take(std::string_view literal) {
    if (s_.substr(0, literal.size()) != literal) return false;
    s_.remove_prefix(literal.size());
    return true;
  }

  // Exactly `min`..`max` digits.
  std::optional<int> number(std::size_t min, std::size_t max) {
    std::size_t n = 0;
    int v = 0;
    while (n < s_.size() && n < max && s_[n] >= '0' && s_[n] <= '9') v = v * 10 + (s_[n++] - '0');
    if (n < min) return std::nullopt;
    s_.remove_prefix(n);
    return v;
  }

  template <std::size_t N>
  std::optional<int> one_of(const std::array<std::string_view, N>& names) {
    for (std::size_t i = 0; i < N; ++i) {
      if (take(names[i])) return static_cast<int>(i);
    }
    return std::nullopt;
  }

 private:
  std::string_view s_;
};

struct DateParts {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

std::optional<std::int64_t> to_epoch(const DateParts& p) {
  if (p.month < 0 || p.month > 11 || p.day < 1 || p.day > 31 || p.hour > 23 || p.minute > 59 ||
      p.second > 60)
    return std::nullopt;
  return days_from_civil(p.year, static_cast<unsigned>(p.month + 1), static_cast<unsigned>(p.day)) *
             86400 +
         p.hour * 3600 + p.minute * 60 + p.second;
}

bool take_time(Cursor& c, DateParts& p) {
  const auto h = c.number(2, 2);
  if (!h || !c.take(":")) return false;
  const auto m = c.number(2, 2);
  if (!m || !c.take(":")) return false;
  const auto s = c.number(2, 2);
  if (!s) return false;
  p.hour = *h;
  p.minute = *m;
  p.second = *s;
  return true;
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
std::optional<std::int64_t> imf_fixdate(std::string_view text) {
  Cursor c(text);
  DateParts p;
  if (!c.one_of(kDays) || !c.take(", ")) return std::nullopt;
  const auto day = c.number(2, 2);
  if (!day || !c.take(" ")) return std::nullopt;
  const auto month = c.one_of(kMonths);
  if (!month || !c.take(" ")) return std::nullopt;
  const auto year = c.number(4, 4);
  if (!year || !c.take(" ") || !take_time(c, p) || !c.take(" GMT") || !c.done())
    return std::nullopt;
  p.day = *day;
  p.month = *month;
  p.year = *year;
  return to_epoch(p);
}

// "Sunday, 06-Nov-94 08:49:37 GMT": a two-digit year, read as the nearest century (RFC 9110
// says a year more than 50 years ahead is in the past century).
std::optional<std::int64_t> rfc850_date(std::string_view text) {
  Cursor c(text);
  DateParts p;
  if (!c.one_of(kLongDays) || !c.take(", ")) return std::nullopt;
  const auto day = c.number(2, 2);
  if (!day || !c.take("-")) return std::nullopt;
  const auto month = c.one_of(kMonths);
  if (!month || !c.take("-")) return std::nullopt;
  const auto year = c.number(2, 2);
  if (!year || !c.take(" ") || !take_time(c, p) || !c.take(" GMT") || !c.done())
    return std::nullopt;
  p.day = *day;
  p.month = *month;
  p.year = *year + (*year < 70 ? 2000 : 1900);
  return to_epoch(p);
}

// "Sun Nov  6 08:49:37 1994"
std::optional<std::int64_t> asctime_date(std::string_view text) {
  Cursor c(text);
  DateParts p;
  if (!c.one_of(kDays) || !c.take(" ")) return std::nullopt;
  const auto month = c.one_of(kMonths);
  if (!month || !c.take(" ")) return std::nullopt;
  c.take(" ");  // a one-digit day is padded with a space
  const auto day = c.number(1, 2);
  if (!day || !c.take(" ") || !take_time(c, p) || !c.take(" ")) return std::nullopt;
  const auto year = c.number(4, 4);
  if (!year || !c.done()) return std::nullopt;
  p.day = *day;
  p.month = *month;
  p.year = *year;
  return to_epoch(p);
}

}  // namespace

std::optional<std::int64_t> parse_http_date(std::string_view text) {
  text = trim_header_value(text);
  if (auto t = imf_fixdate(text)) return t;
  if (auto t = rfc850_date(text)) return t;
  return asctime_date(text);
}

std::optional<RetryAfterHint> parse_retry_after(std::string_view value, std::int64_t now_epoch_ns) {
  // A huge delta saturates rather than wraps: it still means "not for a very long time".
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / kNsPerSecond;
  value = trim_header_value(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    std::int64_t seconds = 0;
    for (const char ch : value) seconds = std::min(kMaxSeconds, seconds * 10 + (ch - '0'));
    return RetryAfterHint{seconds * kNsPerSecond, false};
  }
  const auto epoch_s = parse_http_date(value);
  if (!epoch_s) return std::nullopt;
  // So does a date: years up to 9999 are valid HTTP-dates, but nanoseconds since the epoch
  // end in 2262. Wide arithmetic, then the same bound as a delta.
  const __int128 delay = static_cast<__int128>(*epoch_s) * kNsPerSecond - now_epoch_ns;
  const auto bounded = std::clamp<__int128>(delay, 0, kMaxSeconds * kNsPerSecond);
  return RetryAfterHint{static_cast<std::int64_t>(bounded), true};
}

}  // namespace stampede
