#include <doctest/doctest.h>

#include "http/retry_after_header.hpp"

using namespace stampede;

namespace {
constexpr std::int64_t kSec = 1'000'000'000;
// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example instant.
constexpr std::int64_t kRfcExample = 784111777;
}  // namespace

TEST_CASE("Retry-After delta-seconds are a duration on the provider's clock") {
  struct Case {
    const char* value;
    std::int64_t delay_ns;
  };
  for (const Case c : {Case{"0", 0}, Case{"1", kSec}, Case{"120", 120 * kSec},
                       Case{"  7 \r\n", 7 * kSec}, Case{"\t30", 30 * kSec}}) {
    CAPTURE(c.value);
    const auto h = parse_retry_after(c.value, 0);
    REQUIRE(h);
    CHECK(h->delay_ns == c.delay_ns);
    CHECK_FALSE(h->from_date);
  }
  // Absurdly large: saturates instead of wrapping into a negative delay.
  const auto huge = parse_retry_after("99999999999999999999999", 0);
  REQUIRE(huge);
  CHECK(huge->delay_ns > 0);
}

TEST_CASE("Retry-After HTTP-dates in all three forms are a distance from now") {
  const std::int64_t now = (kRfcExample - 10) * kSec;
  for (const char* value : {"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
                            "Sun Nov  6 08:49:37 1994"}) {
    CAPTURE(value);
    const auto h = parse_retry_after(value, now);
    REQUIRE(h);
    CHECK(h->from_date);
    CHECK(h->delay_ns == 10 * kSec);
  }
  // A date already past means: now.
  const auto past = parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", (kRfcExample + 60) * kSec);
  REQUIRE(past);
  CHECK(past->delay_ns == 0);
  CHECK(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT") == 0);
  CHECK(parse_http_date("Tue, 29 Feb 2028 23:59:59 GMT") == 1835481599);
}

TEST_CASE("Retry-After values that are neither form are ignored") {
  for (const char* value : {"", "  ", "-1", "1.5", "soon", "10s", "Sun, 06 Nov 1994 08:49:37",
                            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
                            "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT x"}) {
    CAPTURE(value);
    CHECK_FALSE(parse_retry_after(value, 0));
  }
}
