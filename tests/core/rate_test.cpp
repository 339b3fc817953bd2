#include <doctest/doctest.h>

#include "duration.hpp"
#include "rate.hpp"

using namespace stampede;

TEST_CASE("rates parse as a count per window") {
  struct Row {
    const char* text;
    std::int64_t count;
    std::int64_t window_ns;
    double per_second;
  };
  for (const Row& r :
       {Row{"100/s", 100, kNsPerSec, 100.0}, Row{"4000/min", 4000, 60 * kNsPerSec, 4000.0 / 60},
        Row{"10/h", 10, 3600 * kNsPerSec, 10.0 / 3600}, Row{"1/s", 1, kNsPerSec, 1.0}}) {
    CAPTURE(r.text);
    const auto rate = parse_rate(r.text);
    REQUIRE(rate);
    CHECK(rate->count == r.count);
    CHECK(rate->window_ns == r.window_ns);
    CHECK(rate->per_second() == doctest::Approx(r.per_second));
    CHECK(format_rate(*rate) == r.text);
  }
}

TEST_CASE("bad rates name the value and what is accepted") {
  for (const char* bad : {"100/sec", "0/s", "-1/s", "abc", "", "100", "/s", "100/", "1.5/s",
                          " 100/s", "100/s ", "100/S", "99999999999999999999/s"}) {
    CAPTURE(bad);
    const auto rate = parse_rate(bad);
    REQUIRE_FALSE(rate);
    CHECK(rate.error().find("'" + std::string(bad) + "'") != std::string::npos);
    CHECK(rate.error().find("expected N/s, N/min or N/h") != std::string::npos);
  }
}
