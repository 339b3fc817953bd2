#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "duration.hpp"
#include "model/limiter.hpp"
#include "rng.hpp"

using namespace stampede;

namespace {

struct Shape {
  std::string name;
  LimiterKind kind;
  Rate rate;
  std::int64_t burst;
};

// Fixed window lets a full window through at the end of one window and another at the start
// of the next: its burst over a short span is twice its count.
std::int64_t span_burst(const Shape& s) {
  return s.kind == LimiterKind::kFixedWindow ? 2 * s.rate.count : s.burst;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all{
      {"fixed 100/s", LimiterKind::kFixedWindow, {100, kNsPerSec}, 100},
      {"fixed 7/s", LimiterKind::kFixedWindow, {7, kNsPerSec}, 7},
      {"fixed 4000/min", LimiterKind::kFixedWindow, {4000, 60 * kNsPerSec}, 4000},
      {"sliding 100/s", LimiterKind::kSlidingWindow, {100, kNsPerSec}, 100},
      {"sliding 7/s", LimiterKind::kSlidingWindow, {7, kNsPerSec}, 7},
      {"sliding 4000/min", LimiterKind::kSlidingWindow, {4000, 60 * kNsPerSec}, 4000},
      {"bucket 100/s burst 100", LimiterKind::kTokenBucket, {100, kNsPerSec}, 100},
      {"bucket 100/s burst 1", LimiterKind::kTokenBucket, {100, kNsPerSec}, 1},
      {"bucket 7/s burst 20", LimiterKind::kTokenBucket, {7, kNsPerSec}, 20},
      {"bucket 4000/min burst 66", LimiterKind::kTokenBucket, {4000, 60 * kNsPerSec}, 66},
      {"bucket 3/s burst 3", LimiterKind::kTokenBucket, {3, kNsPerSec}, 3},
  };
  return all;
}

struct Pattern {
  std::string name;
  std::function<std::vector<std::int64_t>(const Rate&)> times;  // sorted arrival times
};

const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> all{
      {"all at once", [](const Rate& r) { return std::vector<std::int64_t>(5 * r.count + 3, 0); }},
      {"all at once, off the window edge",
       [](const Rate& r) { return std::vector<std::int64_t>(5 * r.count + 3, r.window_ns / 3); }},
      {"evenly spaced, ten per slot",
       [](const Rate& r) {
         std::vector<std::int64_t> t;
         for (std::int64_t i = 0; i < 40 * r.count; ++i)
           t.push_back(i * r.window_ns / r.count / 10);
         return t;
       }},
      {"evenly spaced, awkward gap",
       [](const Rate& r) {
         std::vector<std::int64_t> t;
         const std::int64_t gap = r.window_ns / r.count * 7 / 9 + 13;
         for (std::int64_t i = 0; i < 20 * r.count; ++i) t.push_back(i * gap);
         return t;
       }},
      {"evenly spaced, slower than the rate",
       [](const Rate& r) {
         std::vector<std::int64_t> t;
         for (std::int64_t i = 0; i < 3 * r.count; ++i) t.push_back(i * r.window_ns / r.count * 2);
         return t;
       }},
      {"bursts at window edges",
       [](const Rate& r) {
         std::vector<std::int64_t> t;
         for (std::int64_t w = 1; w <= 6; ++w) {
           for (std::int64_t i = 0; i < 2 * r.count; ++i) t.push_back(w * r.window_ns - 1);
           for (std::int64_t i = 0; i < 2 * r.count; ++i) t.push_back(w * r.window_ns);
         }
         return t;
       }},
      {"random seeded times",
       [](const Rate& r) {
         Rng rng(17);
         std::vector<std::int64_t> t;
         for (std::int64_t i = 0; i < 30 * r.count; ++i)
           t.push_back(rng.uniform(0, 10 * r.window_ns));
         std::sort(t.begin(), t.end());
         return t;
       }},
      {"random seeded clusters",
       [](const Rate& r) {
         Rng rng(23);
         std::vector<std::int64_t> t;
         for (int c = 0; c < 12; ++c) {
           const auto centre = rng.uniform(0, 10 * r.window_ns);
           const auto n = rng.uniform(1, 3 * r.count);
           for (std::int64_t i = 0; i < n; ++i)
             t.push_back(centre + rng.uniform(0, r.window_ns / 20));
         }
         std::sort(t.begin(), t.end());
         return t;
       }},
  };
  return all;
}

// The largest count of admissions in any closed span [a, b], less rate * (b - a), must be at
// most the burst: checked in one pass as max over j of (j + 1 - rate t_j) + max over i <= j of
// (rate t_i - i), in integers scaled by the window.
bool within_burst_plus_rate(const std::vector<std::int64_t>& admitted, const Rate& rate,
                            std::int64_t burst) {
  __int128 best_start = 0;
  for (std::size_t j = 0; j < admitted.size(); ++j) {
    const __int128 start_term =
        static_cast<__int128>(rate.count) * admitted[j] - static_cast<__int128>(j) * rate.window_ns;
    if (j == 0 || start_term > best_start) best_start = start_term;
    const __int128 lhs = static_cast<__int128>(j + 1) * rate.window_ns -
                         static_cast<__int128>(rate.count) * admitted[j] + best_start;
    if (lhs > static_cast<__int128>(burst) * rate.window_ns) return false;
  }
  return true;
}

std::vector<std::int64_t> admitted_times(Limiter& limiter, const std::vector<std::int64_t>& times) {
  std::vector<std::int64_t> out;
  for (const auto t : times) {
    if (limiter.try_acquire(t).admitted) out.push_back(t);
  }
  return out;
}

}  // namespace

TEST_CASE("the span check itself catches an overrun") {
  const Rate rate{10, kNsPerSec};
  CHECK(within_burst_plus_rate(std::vector<std::int64_t>(10, 0), rate, 10));
  CHECK_FALSE(within_burst_plus_rate(std::vector<std::int64_t>(11, 0), rate, 10));
  // 10 at t=0 and 2 more 100 ms later: one token refilled, not two.
  std::vector<std::int64_t> t(10, 0);
  t.push_back(100 * kNsPerMs);
  CHECK(within_burst_plus_rate(t, rate, 10));
  t.push_back(100 * kNsPerMs);
  CHECK_FALSE(within_burst_plus_rate(t, rate, 10));
  // A fixed window's edge: 10 just before it and 10 on it, 1 ns apart, is a burst of 20.
  FixedWindowLimiter fixed(rate);
  std::vector<std::int64_t> edge(10, kNsPerSec - 1);
  edge.insert(edge.end(), 10, kNsPerSec);
  const auto admitted = admitted_times(fixed, edge);
  CHECK(admitted.size() == 20);
  CHECK_FALSE(within_burst_plus_rate(admitted, rate, 19));
  CHECK(within_burst_plus_rate(admitted, rate, 20));
}

TEST_CASE("no limiter admits more than burst + rate * t over any span") {
  for (const auto& shape : shapes()) {
    for (const auto& pattern : patterns()) {
      CAPTURE(shape.name);
      CAPTURE(pattern.name);
      auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
      const auto times = pattern.times(shape.rate);
      const auto admitted = admitted_times(*limiter, times);
      CHECK(!admitted.empty());
      CHECK(within_burst_plus_rate(admitted, shape.rate, span_burst(shape)));
      // Window limiters also never hold more than the count in any window of its length.
      if (shape.kind != LimiterKind::kTokenBucket) {
        std::size_t i = 0;
        for (std::size_t j = 0; j < admitted.size(); ++j) {
          while (admitted[j] - admitted[i] >= shape.rate.window_ns) ++i;
          if (shape.kind == LimiterKind::kSlidingWindow) {
            REQUIRE(static_cast<std::int64_t>(j - i + 1) <= shape.rate.count);
          }
        }
      }
    }
  }
}

TEST_CASE("window limiters admit exactly their count in every aligned window under load") {
  for (const auto& shape : shapes()) {
    if (shape.kind == LimiterKind::kTokenBucket) continue;
    for (const std::string pattern :
         {"all at once", "evenly spaced, ten per slot", "bursts at window edges",
          "all at once, off the window edge"}) {
      CAPTURE(shape.name);
      CAPTURE(pattern);
      const auto& p = *std::find_if(patterns().begin(), patterns().end(),
                                    [&](const Pattern& x) { return x.name == pattern; });
      auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
      const auto times = p.times(shape.rate);
      const auto admitted = admitted_times(*limiter, times);
      std::vector<std::int64_t> demand;
      std::vector<std::int64_t> got;
      for (const auto t : times) {
        const auto w = static_cast<std::size_t>(t / shape.rate.window_ns);
        if (demand.size() <= w) demand.resize(w + 1, 0);
        ++demand[w];
      }
      for (const auto t : admitted) {
        const auto w = static_cast<std::size_t>(t / shape.rate.window_ns);
        if (got.size() <= w) got.resize(w + 1, 0);
        ++got[w];
      }
      got.resize(demand.size(), 0);
      for (std::size_t w = 0; w < demand.size(); ++w) {
        CAPTURE(w);
        if (shape.kind == LimiterKind::kFixedWindow || p.name != "bursts at window edges") {
          CHECK(got[w] == std::min(demand[w], shape.rate.count));
        } else {
          CHECK(got[w] <= shape.rate.count);
        }
      }
      // Six edges, seven windows: a fixed window lets 2 x count through in 2 ns across each
      // edge, 7 x count in all; the sliding log refuses the burst just after each edge.
      if (p.name == "bursts at window edges") {
        const std::int64_t windows = shape.kind == LimiterKind::kFixedWindow ? 7 : 6;
        CHECK(static_cast<std::int64_t>(admitted.size()) == windows * shape.rate.count);
      }
    }
  }
}

TEST_CASE("a token bucket admits its burst, then exactly its rate") {
  for (const auto& shape : shapes()) {
    if (shape.kind != LimiterKind::kTokenBucket) continue;
    CAPTURE(shape.name);
    auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
    // Arrivals far denser than the rate for ten windows: the burst at once, then one per
    // emission interval.
    const std::int64_t span = 10 * shape.rate.window_ns;
    const std::int64_t step = shape.rate.window_ns / shape.rate.count / 16 + 1;
    std::int64_t admitted = 0;
    for (std::int64_t t = 0; t <= span; t += step) admitted += limiter->try_acquire(t).admitted;
    const std::int64_t expected = shape.burst + 10 * shape.rate.count;
    CHECK(admitted <= expected);
    CHECK(admitted >= expected - 1);  // the last interval may not have completed by `span`
  }
}

TEST_CASE("an idle sliding log and token bucket refill, a fixed window resets on its edge") {
  const Rate rate{5, kNsPerSec};
  for (const auto kind :
       {LimiterKind::kFixedWindow, LimiterKind::kSlidingWindow, LimiterKind::kTokenBucket}) {
    CAPTURE(static_cast<int>(kind));
    auto limiter = make_limiter(kind, rate, std::nullopt);
    for (int i = 0; i < 5; ++i) REQUIRE(limiter->try_acquire(0).admitted);
    CHECK_FALSE(limiter->try_acquire(0).admitted);
    for (int i = 0; i < 5; ++i) CHECK(limiter->try_acquire(10 * kNsPerSec).admitted);
    CHECK_FALSE(limiter->try_acquire(10 * kNsPerSec).admitted);
  }
}

TEST_CASE("fixed windows are aligned to t=0, not to the first arrival") {
  FixedWindowLimiter limiter(Rate{2, kNsPerSec});
  struct Row {
    std::int64_t t_ns;
    bool admitted;
    std::int64_t retry_after_ns;
  };
  for (const Row& r : {Row{700 * kNsPerMs, true, 0}, Row{800 * kNsPerMs, true, 0},
                       Row{900 * kNsPerMs, false, 100 * kNsPerMs},
                       Row{1000 * kNsPerMs, true, 0},  // a new window, 300 ms after the first
                       Row{1200 * kNsPerMs, true, 0}, Row{1999 * kNsPerMs, false, 1 * kNsPerMs},
                       Row{2000 * kNsPerMs, true, 0}, Row{2000 * kNsPerMs, true, 0},
                       Row{3 * kNsPerSec - 1, false, 1}, Row{3 * kNsPerSec, true, 0}}) {
    CAPTURE(r.t_ns);
    const auto v = limiter.try_acquire(r.t_ns);
    CHECK(v.admitted == r.admitted);
    CHECK(v.retry_after_ns == r.retry_after_ns);
  }
}

TEST_CASE("waiting the retry_after a limiter reports leads to an admission, and no sooner") {
  for (const auto& shape : shapes()) {
    CAPTURE(shape.name);
    auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
    Rng rng(5);
    std::int64_t t = 0;
    int rejections = 0;
    for (int i = 0; i < 20 * shape.rate.count; ++i) {
      // Mostly dense arrivals, sometimes a gap.
      t += rng.unit() < 1.0 / (2.0 * static_cast<double>(shape.rate.count))
               ? rng.uniform(0, 2 * shape.rate.window_ns)
               : rng.uniform(0, shape.rate.window_ns / shape.rate.count / 4);
      const auto v = limiter->try_acquire(t);
      if (v.admitted) continue;
      ++rejections;
      CAPTURE(t);
      REQUIRE(v.retry_after_ns > 0);
      // A rejection changes nothing, so probing just before the hint is harmless.
      REQUIRE_FALSE(limiter->try_acquire(t + v.retry_after_ns - 1).admitted);
      t += v.retry_after_ns;
      REQUIRE(limiter->try_acquire(t).admitted);
    }
    CHECK(rejections > 0);
  }
}

TEST_CASE("remaining and reset describe the quota") {
  for (const auto& shape : shapes()) {
    CAPTURE(shape.name);
    auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
    const std::int64_t limit =
        shape.kind == LimiterKind::kTokenBucket ? shape.burst : shape.rate.count;
    // The first `limit` arrivals at one instant count remaining down to zero.
    for (std::int64_t i = 1; i <= limit; ++i) {
      const auto v = limiter->try_acquire(0);
      REQUIRE(v.admitted);
      CHECK(v.limit == limit);
      CHECK(v.remaining == limit - i);
      CHECK(v.reset_ns > 0);
      if (shape.kind == LimiterKind::kTokenBucket) {
        // Whole again after one emission interval per token spent.
        CHECK(v.reset_ns == (i * shape.rate.window_ns + shape.rate.count - 1) / shape.rate.count);
      } else {
        CHECK(v.reset_ns == shape.rate.window_ns);
      }
    }
    const auto rejected = limiter->try_acquire(0);
    CHECK_FALSE(rejected.admitted);
    CHECK(rejected.remaining == 0);
    CHECK(rejected.limit == limit);
    CHECK(rejected.reset_ns >= rejected.retry_after_ns);
    // Half a window later a fixed or sliding window has not reset yet.
    if (shape.kind != LimiterKind::kTokenBucket) {
      const auto later = limiter->try_acquire(shape.rate.window_ns / 2);
      CHECK_FALSE(later.admitted);
      CHECK(later.reset_ns == shape.rate.window_ns - shape.rate.window_ns / 2);
    }
  }
}

// A limiter's whole allowance: what it admits at one instant.
static std::int64_t whole(const Shape& s) {
  return s.kind == LimiterKind::kTokenBucket ? s.burst : s.rate.count;
}

TEST_CASE("with costs above 1, no limiter admits more units than burst + rate * t over any span") {
  for (const auto& shape : shapes()) {
    for (const auto& pattern : patterns()) {
      CAPTURE(shape.name);
      CAPTURE(pattern.name);
      auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
      Rng rng(31);
      const std::int64_t max_cost = std::max<std::int64_t>(1, whole(shape) / 4);
      // An admission of cost n is n units at one instant: the span check counts them so.
      std::vector<std::int64_t> units;
      std::int64_t admissions = 0;
      for (const auto t : pattern.times(shape.rate)) {
        const std::int64_t cost = rng.uniform(1, max_cost);
        if (!limiter->try_acquire(t, cost).admitted) continue;
        ++admissions;
        units.insert(units.end(), static_cast<std::size_t>(cost), t);
      }
      CHECK(admissions > 0);
      CHECK(within_burst_plus_rate(units, shape.rate, span_burst(shape)));
    }
  }
}

TEST_CASE("a cost is taken whole or not at all, and remaining counts units") {
  for (const auto& shape : shapes()) {
    CAPTURE(shape.name);
    const std::int64_t limit = whole(shape);
    if (limit < 4) continue;
    auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
    const auto first = limiter->try_acquire(0, 3);
    REQUIRE(first.admitted);
    CHECK(first.remaining == limit - 3);
    // One unit more than is left: refused, and nothing taken.
    const auto over = limiter->try_acquire(0, limit - 2);
    CHECK_FALSE(over.admitted);
    CHECK_FALSE(over.too_large);
    CHECK(over.remaining == limit - 3);
    CHECK(over.retry_after_ns > 0);
    const auto rest = limiter->try_acquire(0, limit - 3);
    REQUIRE(rest.admitted);
    CHECK(rest.remaining == 0);
    // A cost of nothing always goes through.
    CHECK(limiter->try_acquire(0, 0).admitted);
    CHECK_FALSE(limiter->try_acquire(0, 1).admitted);
  }
}

TEST_CASE("a cost above the whole allowance is too large: refused at once, and nothing taken") {
  for (const auto& shape : shapes()) {
    CAPTURE(shape.name);
    const std::int64_t limit = whole(shape);
    auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
    const auto v = limiter->try_acquire(0, limit + 1);
    CHECK_FALSE(v.admitted);
    CHECK(v.too_large);
    CHECK(v.limit == limit);
    // Even on an idle limiter, ten windows on: no wait makes it fit.
    CHECK(limiter->try_acquire(10 * shape.rate.window_ns, limit + 1).too_large);
    // The whole allowance itself fits.
    CHECK(limiter->try_acquire(10 * shape.rate.window_ns, limit).admitted);
  }
}

TEST_CASE("waiting the retry_after reported for a cost leads to its admission, and no sooner") {
  for (const auto& shape : shapes()) {
    CAPTURE(shape.name);
    auto limiter = make_limiter(shape.kind, shape.rate, shape.burst);
    Rng rng(7);
    const std::int64_t max_cost = std::max<std::int64_t>(1, whole(shape) / 3);
    std::int64_t t = 0;
    int rejections = 0;
    for (int i = 0; i < 10 * shape.rate.count; ++i) {
      t += rng.uniform(0, shape.rate.window_ns / shape.rate.count);
      const std::int64_t cost = rng.uniform(1, max_cost);
      const auto v = limiter->try_acquire(t, cost);
      if (v.admitted) continue;
      ++rejections;
      CAPTURE(t);
      CAPTURE(cost);
      REQUIRE_FALSE(v.too_large);
      REQUIRE(v.retry_after_ns > 0);
      REQUIRE_FALSE(limiter->try_acquire(t + v.retry_after_ns - 1, cost).admitted);
      t += v.retry_after_ns;
      REQUIRE(limiter->try_acquire(t, cost).admitted);
    }
    CHECK(rejections > 0);
  }
}

TEST_CASE("the default burst is one second of allowance, at least 1") {
  CHECK(default_burst(Rate{100, kNsPerSec}) == 100);
  CHECK(default_burst(Rate{4000, 60 * kNsPerSec}) == 66);
  CHECK(default_burst(Rate{10, 3600 * kNsPerSec}) == 1);
}

TEST_CASE("a window of centuries holds its admissions to the end of time, never wrapping") {
  // 1 per 2562046 h: the window ends past int64 ns for an admission after t = 0.
  const Rate rate{1, 2'562'046LL * 3600 * kNsPerSec};
  for (const auto kind : {LimiterKind::kFixedWindow, LimiterKind::kSlidingWindow}) {
    CAPTURE(static_cast<int>(kind));
    auto limiter = make_limiter(kind, rate, std::nullopt);
    REQUIRE(limiter->try_acquire(7000 * kNsPerSec, 1).admitted);
    const auto later = limiter->try_acquire(8000 * kNsPerSec, 1);
    CHECK_FALSE(later.admitted);
    CHECK(later.retry_after_ns > 0);
    CHECK(later.reset_ns > 0);
  }
}

TEST_CASE(
    "per-second, the default: an allowance longer than a second is enforced a second at a "
    "time") {
  // OpenAI enforces a per-minute limit over shorter periods: 4000/min admits about 67 a
  // second, never the whole minute at once. A per-second allowance is one fixed window a
  // second, as it always was.
  struct Row {
    std::string rate;
    LimiterKind enforced;
    std::int64_t at_once;         // admitted of a crowd at t=0
    std::int64_t a_second_on;     // admitted of a second crowd 1 s later
    std::int64_t in_ten_seconds;  // admitted of arrivals every millisecond for 10 s
  };
  for (const Row& r : {
           Row{"100/s", LimiterKind::kFixedWindow, 100, 100, 1000},
           Row{"4000/min", LimiterKind::kTokenBucket, 66, 66, 66 + 666},
           Row{"120/min", LimiterKind::kTokenBucket, 2, 2, 2 + 19},
           Row{"30/min", LimiterKind::kTokenBucket, 1, 0, 1 + 4},
           Row{"10000/h", LimiterKind::kTokenBucket, 2, 2, 2 + 27},
       }) {
    CAPTURE(r.rate);
    const Rate rate = *parse_rate(r.rate);
    CHECK(enforced_kind(LimiterKind::kPerSecond, rate) == r.enforced);
    auto crowd = make_limiter(LimiterKind::kPerSecond, rate, std::nullopt);
    const auto admitted_of = [&](std::int64_t t, int n) {
      std::int64_t got = 0;
      for (int i = 0; i < n; ++i) got += crowd->try_acquire(t).admitted;
      return got;
    };
    CHECK(admitted_of(0, 1000) == r.at_once);
    CHECK(admitted_of(kNsPerSec, 1000) == r.a_second_on);
    auto dense = make_limiter(LimiterKind::kPerSecond, rate, std::nullopt);
    std::int64_t got = 0;
    for (std::int64_t t = 0; t < 10 * kNsPerSec; t += kNsPerMs)
      got += dense->try_acquire(t).admitted;
    CHECK(got == r.in_ten_seconds);
  }
  // The kinds a scenario names are enforced as named: fixed-window keeps a whole minute.
  for (const auto kind :
       {LimiterKind::kFixedWindow, LimiterKind::kSlidingWindow, LimiterKind::kTokenBucket}) {
    CHECK(enforced_kind(kind, Rate{4000, 60 * kNsPerSec}) == kind);
  }
  auto minute = make_limiter(LimiterKind::kFixedWindow, Rate{4000, 60 * kNsPerSec}, std::nullopt);
  std::int64_t got = 0;
  for (int i = 0; i < 5000; ++i) got += minute->try_acquire(0).admitted;
  CHECK(got == 4000);
}

TEST_CASE("per-second: a token allowance keeps its whole window, so a large request fits") {
  // As the provider builds its token quota: the whole window's tokens at once, and no more
  // until the window turns.
  const Rate tokens{80000, 60 * kNsPerSec};
  CHECK(enforced_kind(LimiterKind::kPerSecond, tokens, QuotaUnit::kTokens) ==
        LimiterKind::kFixedWindow);
  CHECK(enforced_kind(LimiterKind::kTokenBucket, tokens, QuotaUnit::kTokens) ==
        LimiterKind::kTokenBucket);
  auto quota = make_limiter(LimiterKind::kPerSecond, tokens, tokens.count, QuotaUnit::kTokens);
  CHECK(quota->try_acquire(0, 80000).admitted);
  const auto after = quota->try_acquire(30 * kNsPerSec, 1);
  CHECK_FALSE(after.admitted);
  CHECK_FALSE(after.too_large);
  CHECK(after.retry_after_ns == 30 * kNsPerSec);
  CHECK(quota->try_acquire(60 * kNsPerSec, 80000).admitted);
  CHECK(quota->try_acquire(60 * kNsPerSec, 80001).too_large);
}
