#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "trace_fidelity.hpp"

using namespace stampede;

namespace {

LogHistogram gaps_of(const std::vector<std::int64_t>& values) {
  LogHistogram h;
  for (const auto v : values) h.record(v);
  return h;
}

BinnedCounts counts_by_second(const std::vector<std::int64_t>& counts) {
  BinnedCounts h(kNsPerSec, 2);
  for (std::size_t s = 0; s < counts.size(); ++s)
    h.add(static_cast<std::int64_t>(s) * kNsPerSec, 0, counts[s]);
  return h;
}

}  // namespace

TEST_CASE("ks_distance of binned samples, by table") {
  struct Case {
    const char* name;
    std::vector<std::int64_t> a;
    std::vector<std::int64_t> b;
    double ks;
  };
  const std::vector<Case> cases{
      {"identical", {1, 5, 5, 90, 1'000'000}, {1, 5, 5, 90, 1'000'000}, 0.0},
      {"the same shares, twice the count", {3, 7}, {3, 3, 7, 7}, 0.0},
      {"disjoint", {1, 2, 3}, {1'000, 2'000}, 1.0},
      {"disjoint, the other way", {1'000'000'000}, {0}, 1.0},
      // By hand: below 3, a has 2/4 and b none; below 4, 3/4 and 1/4; below 5, 1 and 2/4.
      {"overlapping by half", {1, 2, 3, 4}, {3, 4, 5, 6}, 0.5},
      // At 1: 2/3 against 1/3; at 2 both are 1.
      {"two thirds against one", {1, 1, 2}, {1, 2, 2}, 1.0 / 3.0},
      {"both empty", {}, {}, 0.0},
      {"one empty", {}, {5}, 1.0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(ks_distance(gaps_of(c.a), gaps_of(c.b)) == doctest::Approx(c.ks));
    CHECK(ks_distance(gaps_of(c.b), gaps_of(c.a)) == doctest::Approx(c.ks));
  }
}

TEST_CASE("ks_distance tells apart values a bucket apart above 128, not within one") {
  // Near 1000 a bucket is 4 wide (within 1/128): 1000 and 1003 share one; 1000 and 1100 do not.
  CHECK(ks_distance(gaps_of({1000}), gaps_of({1003})) == 0.0);
  CHECK(ks_distance(gaps_of({1000}), gaps_of({1100})) == 1.0);
}

TEST_CASE("largest_bin_difference of per-second counts, by table") {
  struct Case {
    const char* name;
    std::vector<std::int64_t> a;
    std::vector<std::int64_t> b;
    std::int64_t count;
    double at_s;
  };
  const std::vector<Case> cases{
      {"identical", {5, 0, 9}, {5, 0, 9}, 0, 0},
      {"one second short", {5, 0, 9}, {5, 0, 7}, 2, 2},
      {"one second over", {5, 0, 9}, {5, 3, 9}, 3, 1},
      {"the first of two equal ones", {4, 4}, {0, 0}, 4, 0},
      {"a longer one", {1}, {1, 0, 0, 6}, 6, 3},
      {"both empty", {}, {}, 0, 0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto d = largest_bin_difference(counts_by_second(c.a), 0, counts_by_second(c.b), 0);
    CHECK(d.count == c.count);
    CHECK(d.at_s == c.at_s);
  }
}

TEST_CASE("largest_bin_difference counts the overflow past the last bin") {
  auto a = counts_by_second({1});
  a.add(a.overflow_start_ns(), 0, 7);
  const auto d = largest_bin_difference(a, 0, counts_by_second({1}), 0);
  CHECK(d.count == 7);
  CHECK(d.at_s == ns_to_s(a.overflow_start_ns()));
}
