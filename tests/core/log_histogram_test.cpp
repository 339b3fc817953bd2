#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "log_histogram.hpp"
#include "rng.hpp"

using namespace stampede;

namespace {

// Values spread over many orders of magnitude, as latencies in ns are.
std::vector<std::int64_t> log_uniform_values(std::uint64_t seed, int n) {
  Rng rng(seed);
  std::vector<std::int64_t> out;
  for (int i = 0; i < n; ++i)
    out.push_back(static_cast<std::int64_t>(std::pow(10.0, rng.unit() * 13)));
  return out;
}

}  // namespace

TEST_CASE("buckets cover every value within 1/128 of its lower bound") {
  auto values = log_uniform_values(1, 20'000);
  for (std::int64_t v = 0; v < 1000; ++v) values.push_back(v);
  for (const auto v : values) {
    CAPTURE(v);
    const auto b = LogHistogram::bucket_of(v);
    const auto lo = LogHistogram::bucket_lower(b);
    const auto hi = LogHistogram::bucket_lower(b + 1);
    REQUIRE(lo <= v);
    REQUIRE(v < hi);
    if (v < 128) {
      CHECK(hi - lo == 1);
    } else {
      CHECK(static_cast<double>(hi - lo) <= static_cast<double>(lo) / 128.0);
    }
  }
}

TEST_CASE("quantiles are within the histogram's relative precision") {
  for (std::uint64_t seed : {1ULL, 2ULL, 3ULL}) {
    auto values = log_uniform_values(seed, 50'000);
    LogHistogram h;
    for (const auto v : values) h.record(v);
    std::sort(values.begin(), values.end());
    CHECK(h.count() == static_cast<std::int64_t>(values.size()));
    CHECK(h.min() == values.front());
    CHECK(h.max() == values.back());
    for (double q : {0.0, 0.001, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0}) {
      CAPTURE(seed);
      CAPTURE(q);
      const auto rank = std::max<std::size_t>(
          1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size()))));
      const double exact = static_cast<double>(values[rank - 1]);
      const double got = static_cast<double>(h.quantile(q));
      CHECK(std::abs(got - exact) <= exact / 128.0);
    }
  }
}

TEST_CASE("small values are exact and the summary statistics are right") {
  LogHistogram h;
  for (std::int64_t v = 1; v <= 100; ++v) h.record(v);
  CHECK(h.quantile(0.5) == 50);
  CHECK(h.quantile(0.99) == 99);
  CHECK(h.quantile(1.0) == 100);
  CHECK(h.quantile(0.0) == 1);
  CHECK(h.mean() == doctest::Approx(50.5));
  LogHistogram empty;
  CHECK(empty.quantile(0.5) == 0);
  CHECK(empty.min() == 0);
  CHECK(empty.max() == 0);
  CHECK(empty.mean() == 0.0);
}

TEST_CASE("recording n at once equals recording n times") {
  LogHistogram once;
  LogHistogram repeated;
  once.record(12'345, 7);
  for (int i = 0; i < 7; ++i) repeated.record(12'345);
  CHECK(once.to_json() == repeated.to_json());
}

TEST_CASE("merging two histograms equals recording both") {
  const auto a = log_uniform_values(11, 5'000);
  const auto b = log_uniform_values(12, 3'000);
  LogHistogram ha;
  LogHistogram hb;
  LogHistogram both;
  for (const auto v : a) {
    ha.record(v);
    both.record(v);
  }
  for (const auto v : b) {
    hb.record(v);
    both.record(v);
  }
  LogHistogram merged = ha;
  merged.merge(hb);
  CHECK(merged.to_json() == both.to_json());
  // Either order, and with an empty one on either side.
  LogHistogram other_way = hb;
  other_way.merge(ha);
  CHECK(other_way.to_json() == both.to_json());
  LogHistogram into_empty;
  into_empty.merge(both);
  CHECK(into_empty.to_json() == both.to_json());
  merged.merge(LogHistogram{});
  CHECK(merged.to_json() == both.to_json());
}

TEST_CASE("a histogram survives a JSON round trip") {
  LogHistogram h;
  for (const auto v : log_uniform_values(21, 10'000)) h.record(v);
  h.record(0, 3);
  const auto j = h.to_json();
  const auto back = LogHistogram::from_json(nlohmann::json::parse(j.dump()));
  CHECK(back.to_json() == j);
  CHECK(back.count() == h.count());
  CHECK(back.min() == h.min());
  CHECK(back.max() == h.max());
  CHECK(back.mean() == h.mean());
  for (double q : {0.0, 0.5, 0.99, 1.0}) CHECK(back.quantile(q) == h.quantile(q));
  CHECK_THROWS(LogHistogram::from_json(nlohmann::json::parse(R"({"buckets": [[-1, 2]]})")));
  CHECK_THROWS(LogHistogram::from_json(nlohmann::json::parse(R"({"count": 1})")));
}

TEST_CASE("the sum of latencies of centuries saturates instead of wrapping negative") {
  LogHistogram h;
  h.record(std::numeric_limits<std::int64_t>::max());
  h.record(std::numeric_limits<std::int64_t>::max(), 3);
  LogHistogram other = h;
  h.merge(other);
  CHECK(h.count() == 8);
  CHECK(h.mean() > 0);
  CHECK(h.to_json().at("sum") == std::numeric_limits<std::int64_t>::max());
  CHECK(h.quantile(0.5) > 0);
}
