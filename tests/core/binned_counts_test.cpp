#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "duration.hpp"

using namespace stampede;

namespace {

void check_same(const BinnedCounts& a, const BinnedCounts& b) {
  REQUIRE(a.bin_ns() == b.bin_ns());
  REQUIRE(a.labels() == b.labels());
  REQUIRE(a.bins() == b.bins());
  for (std::size_t bin = 0; bin < a.bins(); ++bin) {
    for (std::size_t l = 0; l < a.labels(); ++l) {
      CAPTURE(bin);
      CAPTURE(l);
      CHECK(a.at(bin, l) == b.at(bin, l));
    }
  }
}

}  // namespace

TEST_CASE("counts land in the bin of their time and label") {
  BinnedCounts c(kNsPerSec, 3);
  struct Row {
    std::int64_t t_ns;
    std::size_t label;
    std::int64_t n;
  };
  for (const Row& r : {Row{0, 0, 1}, Row{kNsPerSec - 1, 0, 1}, Row{kNsPerSec, 1, 2},
                       Row{5 * kNsPerSec + 7, 2, 5}, Row{-3 * kNsPerSec, 2, 1}}) {
    c.add(r.t_ns, r.label, r.n);
  }
  CHECK(c.bins() == 6);
  CHECK(c.at(0, 0) == 2);
  CHECK(c.at(0, 2) == 1);  // before the start counts in the first bin
  CHECK(c.at(1, 1) == 2);
  CHECK(c.at(5, 2) == 5);
  CHECK(c.bin_total(0) == 3);
  CHECK(c.bin_total(3) == 0);
  CHECK(c.total() == 10);
}

TEST_CASE("merging adds bin by bin and refuses a different shape") {
  BinnedCounts a(kNsPerSec, 2);
  BinnedCounts b(kNsPerSec, 2);
  BinnedCounts both(kNsPerSec, 2);
  for (std::int64_t t = 0; t < 10; ++t) {
    a.add(t * kNsPerSec, t % 2, t);
    both.add(t * kNsPerSec, t % 2, t);
  }
  for (std::int64_t t = 0; t < 25; t += 3) {
    b.add(t * kNsPerSec, 1, 2);
    both.add(t * kNsPerSec, 1, 2);
  }
  BinnedCounts merged = a;  // the shorter one grows to the longer
  merged.merge(b);
  check_same(merged, both);
  BinnedCounts other_way = b;
  other_way.merge(a);
  check_same(other_way, both);
  CHECK_THROWS(merged.merge(BinnedCounts(kNsPerMs, 2)));
  CHECK_THROWS(merged.merge(BinnedCounts(kNsPerSec, 3)));
}

TEST_CASE("binned counts survive a JSON round trip") {
  BinnedCounts c(250 * kNsPerMs, 3);
  for (std::int64_t i = 0; i < 100; ++i) c.add(i * 37 * kNsPerMs, i % 3, i);
  const auto j = c.to_json({"a", "b", "c"});
  CHECK(j.at("bin_ms") == 250);
  CHECK(j.at("labels") == nlohmann::json({"a", "b", "c"}));
  CHECK(j.at("counts").size() == c.bins());
  const auto back = BinnedCounts::from_json(nlohmann::json::parse(j.dump()));
  check_same(back, c);
  CHECK(back.to_json({"a", "b", "c"}) == j);
}

TEST_CASE("malformed binned counts are refused") {
  for (const char* bad : {R"({"bin_ms": 0, "labels": ["a"], "counts": []})",
                          R"({"bin_ms": 1000, "labels": [], "counts": []})",
                          R"({"bin_ms": 1000, "labels": ["a", "b"], "counts": [[1]]})",
                          R"({"bin_ms": 1000, "labels": ["a"]})"}) {
    CAPTURE(bad);
    CHECK_THROWS(BinnedCounts::from_json(nlohmann::json::parse(bad)));
  }
}

TEST_CASE("adds that jump between bins, edges and negative times count as a division says") {
  const std::int64_t bin = 7;
  BinnedCounts c(bin, 2);
  std::vector<std::int64_t> expected(2 * 12, 0);
  // Back and forth, on and either side of each edge, and before zero (bin 0).
  const std::int64_t times[] = {0, 6, 7, -1, 13, 14, -20, 3, 76, 77, 70, 69, 0, 83, 7, 6};
  std::size_t label = 0;
  for (const auto t : times) {
    c.add(t, label, 2);
    expected[static_cast<std::size_t>(std::max<std::int64_t>(0, t) / bin) * 2 + label] += 2;
    label = 1 - label;
  }
  REQUIRE(c.bins() == 12);
  for (std::size_t b = 0; b < c.bins(); ++b) {
    CAPTURE(b);
    CHECK(c.at(b, 0) == expected[b * 2]);
    CHECK(c.at(b, 1) == expected[b * 2 + 1]);
  }
  // A copy carries on counting into the right bins.
  BinnedCounts copy = c;
  copy.add(70, 1);
  CHECK(copy.at(10, 1) == c.at(10, 1) + 1);
}

TEST_CASE("a time past the last bin counts in the overflow bin and never sizes the histogram") {
  BinnedCounts c(kNsPerSec, 2);
  const std::int64_t last_end_ns = static_cast<std::int64_t>(BinnedCounts::kMaxBins) * kNsPerSec;
  CHECK(c.overflow_start_ns() == last_end_ns);
  c.add(3 * kNsPerSec, 0);
  c.add(last_end_ns - 1, 1);  // the last bin
  c.add(last_end_ns, 0);      // the first time past it
  c.add(std::numeric_limits<std::int64_t>::max(), 1, 5);
  c.add(last_end_ns * 1000, 0);
  CHECK(c.bins() == BinnedCounts::kMaxBins);
  CHECK(c.at(BinnedCounts::kMaxBins - 1, 1) == 1);
  CHECK(c.overflow(0) == 2);
  CHECK(c.overflow(1) == 5);
  CHECK(c.overflow_total() == 7);
  CHECK(c.total() == 2);  // the binned ones
  // Back in range after an overflow: the bin of the add, not the overflow.
  c.add(3 * kNsPerSec, 0);
  CHECK(c.at(3, 0) == 2);
  // A huge time alone leaves the histogram empty, not a day (or 292 years) of zeros.
  BinnedCounts far(kNsPerSec, 2);
  far.add(std::numeric_limits<std::int64_t>::max(), 0);
  CHECK(far.bins() == 0);
  CHECK(far.total() == 0);
  CHECK(far.overflow_total() == 1);
}

TEST_CASE("merging adds the overflow bins, saturating") {
  BinnedCounts a(kNsPerSec, 2);
  BinnedCounts b(kNsPerSec, 2);
  a.add(std::numeric_limits<std::int64_t>::max(), 0, 3);
  b.add(std::numeric_limits<std::int64_t>::max(), 0, 4);
  b.add(std::numeric_limits<std::int64_t>::max(), 1, std::numeric_limits<std::int64_t>::max());
  b.add(kNsPerSec, 1);
  a.merge(b);
  CHECK(a.overflow(0) == 7);
  CHECK(a.overflow(1) == std::numeric_limits<std::int64_t>::max());
  CHECK(a.bins() == 2);
  a.merge(b);  // a count at the top stays there
  CHECK(a.overflow(1) == std::numeric_limits<std::int64_t>::max());
  CHECK(a.overflow_total() == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("the overflow bin is written only when used and read back") {
  BinnedCounts c(kNsPerSec, 2);
  c.add(0, 0);
  CHECK_FALSE(c.to_json({"a", "b"}).contains("overflow"));  // an ordinary document as before
  c.add(std::numeric_limits<std::int64_t>::max(), 1, 3);
  const auto j = c.to_json({"a", "b"});
  CHECK(j.at("overflow") == nlohmann::json({0, 3}));
  const auto back = BinnedCounts::from_json(nlohmann::json::parse(j.dump()));
  check_same(back, c);
  CHECK(back.overflow(1) == 3);
  CHECK(back.to_json({"a", "b"}) == j);
}

TEST_CASE("a document with more rows than the bound is read with the rest in the overflow bin") {
  // Older binaries wrote a row per second however long the run (100 hours: 360,000 rows).
  const std::size_t rows = BinnedCounts::kMaxBins + 5;
  nlohmann::json counts = nlohmann::json::array();
  for (std::size_t b = 0; b < rows; ++b) counts.push_back({1});
  const nlohmann::json j{{"bin_ms", 1000}, {"labels", {"a"}}, {"counts", counts}};
  const auto c = BinnedCounts::from_json(j);
  CHECK(c.bins() == BinnedCounts::kMaxBins);
  CHECK(c.overflow(0) == 5);
  CHECK(c.total() == static_cast<std::int64_t>(BinnedCounts::kMaxBins));
}

TEST_CASE("a bin too wide for the bound to stay inside int64, or a bad overflow, is refused") {
  for (const char* bad :
       {R"({"bin_ms": 9223372036854, "labels": ["a"], "counts": []})",
        R"({"bin_ms": 3600001, "labels": ["a"], "counts": []})",
        R"({"bin_ms": 1000, "labels": ["a", "b"], "counts": [], "overflow": [1]})"}) {
    CAPTURE(bad);
    CHECK_THROWS(BinnedCounts::from_json(nlohmann::json::parse(bad)));
  }
  CHECK(BinnedCounts::from_json(
            nlohmann::json::parse(R"({"bin_ms": 3600000, "labels": ["a"], "counts": [[1]]})"))
            .bins() == 1);
}
