#include <doctest/doctest.h>

#include <climits>
#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/backoff.hpp"

using namespace stampede;

namespace {

struct Bounds {
  std::string name;
  std::int64_t base_ns;
  std::int64_t cap_ns;
};

const std::vector<Bounds>& bounds() {
  static const std::vector<Bounds> all{
      {"1s..60s", kNsPerSec, 60 * kNsPerSec},
      {"1s..8s", kNsPerSec, 8 * kNsPerSec},
      {"250ms..1h", 250 * kNsPerMs, 3600 * kNsPerSec},
      {"3ns..max", 3, LLONG_MAX},
      {"1ns..max", 1, LLONG_MAX},
      {"1s..1s", kNsPerSec, kNsPerSec},
      {"7ms..1d", 7 * kNsPerMs, 86400 * kNsPerSec},
  };
  return all;
}

// The jitter strategies draw from [lo, d + 1) and from up to 3 * previous: caps near the top of
// int64 (centuries) are out of their range.
bool jitter_range(const Bounds& b) {
  return b.cap_ns <= LLONG_MAX / 4;
}

// min(cap, base * 2^(n-1)), computed wide so it cannot overflow.
std::int64_t expected_exponential(const Bounds& b, std::int64_t n) {
  const std::int64_t shift = n - 1;
  if (shift >= 64) return b.cap_ns;
  const __int128 d = static_cast<__int128>(b.base_ns) << shift;
  return d > b.cap_ns ? b.cap_ns : static_cast<std::int64_t>(d);
}

}  // namespace

TEST_CASE("exponential waits exactly min(cap, base * 2^(n-1)) for n = 1..70") {
  Rng rng(1);
  for (const auto& b : bounds()) {
    const Backoff backoff(StrategyKind::kExponential, b.base_ns, b.cap_ns);
    for (std::int64_t n = 1; n <= 70; ++n) {
      CAPTURE(b.name);
      CAPTURE(n);
      const auto want = expected_exponential(b, n);
      CHECK(backoff.next({n, 0}, rng).delay_ns == want);
      CHECK(backoff.ceiling(n) == want);
    }
  }
}

TEST_CASE("the reference schedule: 1, 2, 4, 8, 16, 32, 60, 60 seconds") {
  const Backoff backoff(StrategyKind::kExponential, kNsPerSec, 60 * kNsPerSec);
  Rng rng(1);
  const std::vector<std::int64_t> want{1, 2, 4, 8, 16, 32, 60, 60};
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(backoff.next({static_cast<std::int64_t>(i) + 1, 0}, rng).delay_ns == want[i] * kNsPerSec);
  }
}

TEST_CASE("fixed waits the base and none waits nothing, every attempt") {
  Rng rng(1);
  for (const auto& b : bounds()) {
    CAPTURE(b.name);
    const Backoff fixed(StrategyKind::kFixed, b.base_ns, b.cap_ns);
    const Backoff none(StrategyKind::kNone, b.base_ns, b.cap_ns);
    for (std::int64_t n = 1; n <= 70; ++n) {
      CHECK(fixed.next({n, n * 5}, rng).delay_ns == b.base_ns);
      CHECK(none.next({n, n * 5}, rng).delay_ns == 0);
    }
  }
}

TEST_CASE("full jitter draws in [0, d] with its mean within 2% of d/2") {
  for (const auto& b : bounds()) {
    if (!jitter_range(b)) continue;
    const Backoff backoff(StrategyKind::kFullJitter, b.base_ns, b.cap_ns);
    for (std::int64_t n : {1, 2, 3, 4, 7, 40, 70}) {
      CAPTURE(b.name);
      CAPTURE(n);
      const auto d = backoff.ceiling(n);
      if (d < 1000) continue;  // the mean of a handful of integers is not the point
      Rng rng(static_cast<std::uint64_t>(n) * 31 + 7);
      constexpr int kDraws = 100'000;
      long double sum = 0;
      std::int64_t lo = LLONG_MAX;
      std::int64_t hi = 0;
      for (int i = 0; i < kDraws; ++i) {
        const auto v = backoff.next({n, 0}, rng).delay_ns;
        REQUIRE(v >= 0);
        REQUIRE(v <= d);
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const long double mean = sum / kDraws;
      CHECK(std::abs(static_cast<double>(mean / (d / 2.0L) - 1)) <= 0.02);
      // It really spreads over the whole range.
      CHECK(static_cast<double>(lo) < 0.01 * static_cast<double>(d));
      CHECK(static_cast<double>(hi) > 0.99 * static_cast<double>(d));
    }
  }
}

TEST_CASE("equal jitter draws in [d/2, d]") {
  for (const auto& b : bounds()) {
    if (!jitter_range(b)) continue;
    const Backoff backoff(StrategyKind::kEqualJitter, b.base_ns, b.cap_ns);
    for (std::int64_t n : {1, 2, 3, 5, 70}) {
      CAPTURE(b.name);
      CAPTURE(n);
      const auto d = backoff.ceiling(n);
      Rng rng(9);
      long double sum = 0;
      constexpr int kDraws = 20'000;
      for (int i = 0; i < kDraws; ++i) {
        const auto v = backoff.next({n, 0}, rng).delay_ns;
        REQUIRE(v >= d / 2);
        REQUIRE(v <= d);
        sum += v;
      }
      if (d >= 1000) {
        CHECK(std::abs(static_cast<double>(sum / kDraws / (0.75L * d) - 1)) <= 0.02);
      }
    }
  }
}

TEST_CASE("decorrelated jitter draws in [base, min(cap, 3 * previous)], previous from base") {
  for (const auto& b : bounds()) {
    if (!jitter_range(b)) continue;
    CAPTURE(b.name);
    const Backoff backoff(StrategyKind::kDecorrelatedJitter, b.base_ns, b.cap_ns);
    Rng rng(11);
    for (int item = 0; item < 200; ++item) {
      std::int64_t previous = 0;  // before the first retry: the strategy starts from base
      for (std::int64_t n = 1; n <= 30; ++n) {
        const std::int64_t from = previous > 0 ? previous : b.base_ns;
        const std::int64_t upper = std::min(b.cap_ns, 3 * from);
        const auto v = backoff.next({n, previous}, rng).delay_ns;
        REQUIRE(v >= b.base_ns);
        REQUIRE(v <= upper);
        previous = v;
      }
    }
    // The first retry draws from [base, 3 * base] (or the cap), not from [base, base].
    Rng first(12);
    bool above_base = false;
    for (int i = 0; i < 100; ++i) above_base |= backoff.next({1, 0}, first).delay_ns > b.base_ns;
    CHECK(above_base == (b.cap_ns > b.base_ns));
  }
}

TEST_CASE("every jitter strategy draws afresh on each call") {
  for (const auto kind :
       {StrategyKind::kFullJitter, StrategyKind::kEqualJitter, StrategyKind::kDecorrelatedJitter}) {
    CAPTURE(static_cast<int>(kind));
    const Backoff backoff(kind, kNsPerSec, 60 * kNsPerSec);
    Rng rng(3);
    const Rng before = rng;
    std::vector<std::int64_t> draws;
    for (int i = 0; i < 50; ++i) draws.push_back(backoff.next({3, 2 * kNsPerSec}, rng).delay_ns);
    std::sort(draws.begin(), draws.end());
    CHECK(std::unique(draws.begin(), draws.end()) - draws.begin() > 45);
    // The same stream replays the same draws: the randomness is the caller's stream only.
    Rng replay = before;
    Rng again = before;
    for (int i = 0; i < 10; ++i) {
      CHECK(backoff.next({3, 2 * kNsPerSec}, replay).delay_ns ==
            backoff.next({3, 2 * kNsPerSec}, again).delay_ns);
    }
  }
}

TEST_CASE("a draw returns the carry for the next retry and leaves its context alone") {
  const Backoff v2(StrategyKind::kDecorrelatedJitterV2, kNsPerSec, 3600 * kNsPerSec);
  const Backoff full(StrategyKind::kFullJitter, kNsPerSec, 3600 * kNsPerSec);
  Rng rng(7);
  const BackoffContext first{1, 0, 0};
  const BackoffDraw a = v2.next(first, rng);
  CHECK(first.carry == 0);
  CHECK(a.carry > 0);  // Polly's running point, 2^t tanh(sqrt(4t)) for t in [0, 1)
  // The second retry steps from the first's point: its delay is the difference.
  const BackoffDraw b = v2.next({2, a.delay_ns, a.carry}, rng);
  CHECK(b.carry > a.carry);
  CHECK(b.delay_ns > 0);
  // A strategy with no running value passes the context's carry on untouched.
  CHECK(full.next({3, 0, 1.25}, rng).carry == 1.25);
}
