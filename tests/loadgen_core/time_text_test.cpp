#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "policy/time_text.hpp"

using namespace stampede;

namespace {

// "none" or the nanoseconds, for one table column.
std::string shown(std::optional<std::int64_t> ns) {
  return ns ? std::to_string(*ns) : "none";
}

struct TimeRow {
  std::string text, ns;
};

void check(std::optional<std::int64_t> (*parse)(std::string_view),
           const std::vector<TimeRow>& rows) {
  for (const auto& r : rows) {
    CAPTURE(r.text);
    CHECK(shown(parse(r.text)) == r.ns);
  }
}

}  // namespace

TEST_CASE("time_text: decimal seconds, whole and fraction read apart") {
  check(decimal_seconds_ns,
        {
            {"1767225600.123", "1767225600123000000"},
            {"1767225600", "1767225600000000000"},
            {"12345678", "12345678000000000"},  // the digits a word at a time, every one placed
            {"98765432.5", "98765432500000000"},
            {"1234567", "1234567000000000"},
            {"1234567/.5", "none"},  // '/' and ':' border the digits
            {"123456:8", "none"},
            {"12345678:", "none"},
            {"1234\x80"
             "678",
             "none"},
            {"09223372035", "9223372035000000000"},
            {"0.5", "500000000"},
            {"0", "0"},
            {"007.25", "7250000000"},
            {"1.123456789", "1123456789"},
            {"1.1234567891", "1123456789"},  // beyond nanoseconds: ignored
            {"1.00000000000000000000009", "1000000000"},
            {"999999999999999999", "none"},  // 18 digits, past 2262
            {"9223372035", "9223372035000000000"},
            {"9223372036", "none"},
            {"1234567890123456789", "none"},  // 19 digits
            {"", "none"},
            {".5", "none"},
            {"1.", "none"},
            {"1..5", "none"},
            {"1.2.3", "none"},
            {"-1.5", "none"},
            {"+1", "none"},
            {"1.5 ", "none"},
            {" 1.5", "none"},
            {"1e3", "none"},
            {"12:00", "none"},
        });
}

TEST_CASE("time_text: RFC 3339 with a fraction and any offset") {
  check(rfc3339_ns, {
                        {"2026-01-01T00:00:00Z", "1767225600000000000"},
                        {"2026-01-01t00:00:00z", "1767225600000000000"},
                        {"2026-01-01 00:00:00+00:00", "1767225600000000000"},
                        {"2026-01-01T01:00:00.5+01:00", "1767225600500000000"},
                        {"2025-12-31T23:30:00.250-00:30", "1767225600250000000"},
                        {"2026-01-01T00:00:60Z", "1767225660000000000"},  // a leap second
                        {"2026-01-01T00:00:00.Z", "none"},
                        {"2026-01-01T00:00:00", "none"},
                        {"2026-01-01T00:00:00+0100", "none"},
                        {"2026-13-01T00:00:00Z", "none"},
                        {"2026-01-01T24:00:00Z", "none"},
                        {"2026-01-01T00:60:00Z", "none"},
                        {"2026-01-01T00:00:61Z", "none"},
                        {"2026-01-00T00:00:00Z", "none"},
                        {"2026-1-01T00:00:00Z", "none"},
                        {"2026-01-01X00:00:00Z", "none"},
                        {"2026-01-01T00:00:00Zx", "none"},
                        {"2026-01-01T00:00:0aZ", "none"},
                    });
}

TEST_CASE("time_text: the Common Log Format's time") {
  check(clf_time_ns, {
                         {"01/Jan/2026:00:00:00 +0000", "1767225600000000000"},
                         {"10/Oct/2000:13:55:36 -0700", "971211336000000000"},
                         {"31/Dec/2025:23:00:00 -0100", "1767225600000000000"},
                         {"01/jan/2026:00:00:00 +0000", "none"},
                         {"01/Jan/2026:00:00:00 +00:00", "none"},
                         {"01/Jan/2026:00:00:00 0000", "none"},
                         {"1/Jan/2026:00:00:00 +0000", "none"},
                         {"01/Jan/2026 00:00:00 +0000", "none"},
                         {"01/Jan/2026:25:00:00 +0000", "none"},
                     });
}
