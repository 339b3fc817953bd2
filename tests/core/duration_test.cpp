#include <doctest/doctest.h>

#include "duration.hpp"

using namespace stampede;

TEST_CASE("durations parse with their unit") {
  struct Row {
    const char* text;
    std::int64_t ns;
  };
  for (const Row& r :
       {Row{"1s", kNsPerSec}, Row{"250ms", 250 * kNsPerMs}, Row{"1.5s", 1'500'000'000},
        Row{"2m", 120 * kNsPerSec}, Row{"1h", 3600 * kNsPerSec}, Row{"100us", 100'000},
        Row{"10ns", 10}, Row{"0s", 0}, Row{"0.25min", 15 * kNsPerSec}}) {
    CAPTURE(r.text);
    const auto d = parse_duration_ns(r.text);
    REQUIRE(d);
    CHECK(*d == r.ns);
  }
}

TEST_CASE("bad durations name the value and what is accepted") {
  for (const char* bad :
       {"", "30", "s", "-1s", "1sec", "1.5", "abc", "1 s", "99999999999999999999s"}) {
    CAPTURE(bad);
    const auto d = parse_duration_ns(bad);
    REQUIRE_FALSE(d);
    CHECK(d.error().find("expected") != std::string::npos);
  }
}

TEST_CASE("durations format back to what parses") {
  for (std::int64_t ns : std::initializer_list<std::int64_t>{
           kNsPerSec, 60 * kNsPerSec, 1'500'000'000, 250 * kNsPerMs, 3600 * kNsPerSec, 1234,
           1'234'567, 1'000'500'000, 61 * kNsPerSec, 90 * 60 * kNsPerSec, 999, 1, 0,
           7 * 86400 * kNsPerSec + 1}) {
    const auto text = format_duration(ns);
    CAPTURE(text);
    const auto back = parse_duration_ns(text);
    REQUIRE(back);
    CHECK(*back == ns);
  }
}

TEST_CASE("durations format in their largest whole unit") {
  struct Row {
    std::int64_t ns;
    const char* text;
  };
  for (const Row& r : {Row{0, "0s"}, Row{kNsPerSec, "1s"}, Row{1'500'000'000, "1.5s"},
                       Row{250 * kNsPerMs, "250ms"}, Row{120 * kNsPerSec, "2m"},
                       Row{3600 * kNsPerSec, "1h"}, Row{100'000, "100us"}, Row{10, "10ns"}}) {
    CAPTURE(r.ns);
    CHECK(format_duration(r.ns) == r.text);
  }
}

TEST_CASE("durations rounded for a person: the largest unit, to a thousandth of it") {
  struct Row {
    std::int64_t ns;
    const char* text;
  };
  for (const Row& r : {Row{16'768'952, "16.768ms"}, Row{30'016'768'952, "30.016s"},
                       Row{30 * kNsPerSec, "30s"}, Row{90 * kNsPerSec, "90s"},
                       Row{120 * kNsPerSec, "2m"}, Row{1'234, "1.234us"}, Row{0, "0s"}}) {
    CAPTURE(r.ns);
    CHECK(format_duration_rounded(r.ns) == r.text);
  }
}

TEST_CASE("a negative duration is called negative, not a value without a number") {
  for (const char* text : {"-1s", "-0.5ms", "-30m"}) {
    CAPTURE(text);
    const auto d = parse_duration_ns(text);
    REQUIRE_FALSE(d);
    CHECK(d.error().find("(negative)") != std::string::npos);
    CHECK(d.error().find("no number") == std::string::npos);
  }
}
