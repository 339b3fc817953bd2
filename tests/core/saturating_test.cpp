#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "duration.hpp"
#include "saturating.hpp"
#include "scenario_clock.hpp"

using namespace stampede;

TEST_CASE("saturating time sums stop at the ends of int64 instead of wrapping") {
  struct Row {
    std::int64_t a, b, sum, difference;
  };
  const Row rows[] = {
      {1, 2, 3, -1},
      {kMaxNs, 1, kMaxNs, kMaxNs - 1},
      {kMaxNs - 5, 10, kMaxNs, kMaxNs - 15},
      {kMinNs, -1, kMinNs, kMinNs + 1},
      {kMinNs, 1, kMinNs + 1, kMinNs},
      {0, kMinNs, kMinNs, kMaxNs},  // -INT64_MIN is past the top
      {-1, kMaxNs, kMaxNs - 1, kMinNs},
      {kMaxNs, kMaxNs, kMaxNs, 0},
  };
  for (const auto& r : rows) {
    CAPTURE(r.a);
    CAPTURE(r.b);
    CHECK(saturating_add(r.a, r.b) == r.sum);
    CHECK(saturating_sub(r.a, r.b) == r.difference);
  }
  CHECK(saturating_mul(1'000'000'000'000, kNsPerSec) == kMaxNs);
  CHECK(saturating_mul(-1'000'000'000'000, kNsPerSec) == kMinNs);
  CHECK(saturating_mul(3, 4) == 12);
  static_assert(saturating_add(kMaxNs, 1) == kMaxNs);
}

TEST_CASE("a floating-point nanosecond count out of range saturates") {
  CHECK(saturating_ns(1.5) == 1);
  CHECK(saturating_ns(-1.5) == -1);
  CHECK(saturating_ns(1e19) == kMaxNs);
  CHECK(saturating_ns(9223372036854775808.0) == kMaxNs);  // 2^63, one past the top
  CHECK(saturating_ns(-1e19) == kMinNs);
  CHECK(saturating_ns(std::numeric_limits<double>::infinity()) == kMaxNs);
  CHECK(saturating_ns(-std::numeric_limits<double>::infinity()) == kMinNs);
  CHECK(saturating_ns(std::nan("")) == 0);
}

TEST_CASE("scenario clock conversions saturate a time beyond int64 on the wall") {
  // At --time-scale 10 a 300,000-hour wait is 1.08e19 wall ns: past the end of int64.
  const ScenarioClock slow(10);
  const std::int64_t wait_ns = 300'000LL * 3600 * kNsPerSec;
  CHECK(slow.wall_ns(wait_ns) == kMaxNs);
  CHECK(slow.to_steady_ns(wait_ns) == kMaxNs);
  CHECK(slow.to_steady_ns(kMaxNs) == kMaxNs);
  CHECK(slow.to_scenario_ns(kMaxNs) > 0);
  // At 0.001 the scenario runs a thousand times faster than the wall: a far wall time is the
  // end of scenario time, not a negative one.
  const ScenarioClock fast(0.001);
  CHECK(fast.to_scenario_ns(kMaxNs) == kMaxNs);
  CHECK(fast.to_scenario_ns(kMinNs) == kMinNs);
  // Ordinary values convert exactly as before.
  CHECK(slow.wall_ns(kNsPerSec) == 10 * kNsPerSec);
  CHECK(fast.wall_ns(kNsPerSec) == kNsPerSec / 1000);
}
