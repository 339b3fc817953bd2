// Issue 14: times no run reaches, given to the binaries. An outage to the end of int64 time
// with its Retry-After followed crashed simulate (std::bad_alloc, exit 134, no file); a
// hundred-hour one wrote a 115 MB results file, a row per second. Now a retry due after the
// horizon leaves its item unfinished, and a histogram holds at most a day of one-second bins,
// the rest in an overflow bin, in results, reports and merges alike.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// Generous: the fixed runs take well under a second; a regression that loops is killed.
constexpr int kHostileRunBoundMs = 60'000;
constexpr std::int64_t kSmallFile = 1'000'000;

std::int64_t size_of(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : -1;
}

std::vector<std::string> outage_sim(const std::string& outage, const std::string& mode) {
  return {"simulate", "--clients", "2", "--outage", outage, "--retry-after", mode};
}

std::int64_t overflow_total(const json& histogram) {
  std::int64_t n = 0;
  for (const auto& c : histogram.value("overflow", json::array())) n += c.get<std::int64_t>();
  return n;
}

}  // namespace

TEST_CASE("simulate: an outage to the end of time, Retry-After followed, leaves items unfinished") {
  for (const std::string mode : {"exact", "jittered"}) {
    CAPTURE(mode);
    const TempDir dir;
    const auto out = dir.file("results.json");
    // Exit 0: simulate's exit is its assertions', and none were given (--expect-none drops
    // delivered > 0, which a fleet that delivered nothing fails); the two items are counted
    // unfinished, their retries due after the 7-day horizon.
    const auto r = run_binary(
        "loadgen", with(outage_sim("0s-2562046h:503", mode), {"--out", out, "--expect-none"}),
        kHostileRunBoundMs);
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(size_of(out) > 0);
    CHECK(size_of(out) < kSmallFile);
    CHECK(size_of(dir.file("results.html")) < kSmallFile);
    const auto doc = json::parse(read_file(out));
    CHECK(doc["counts"]["requests"] == 2);
    CHECK(doc["counts"]["unfinished"] == 2);
    // Asked whether every item got through, it says no.
    const auto asked = run_binary(
        "loadgen",
        with(outage_sim("0s-2562046h:503", mode), {"--quiet", "--assert", "unfinished == 0"}),
        kHostileRunBoundMs);
    CHECK(asked.code == 1);
  }
}

TEST_CASE("simulate: a hundred-hour outage is delivered, its late sends past the last bin") {
  const TempDir dir;
  const auto out = dir.file("results.json");
  const auto r = run_binary("loadgen", with(outage_sim("0s-100h:503", "exact"), {"--out", out}),
                            kHostileRunBoundMs);
  INFO(r.err);
  CHECK(r.code == 0);                // no assertions given; every item delivered
  CHECK(size_of(out) < kSmallFile);  // was 115 MB
  CHECK(r.out.find("t>=86400: 2 (past the last bin)") != std::string::npos);
  const auto doc = json::parse(read_file(out));
  CHECK(doc["counts"]["delivered"] == 2);
  CHECK(doc["summary"]["drain_s"] == 360000);
  const auto& arrivals = doc["histograms"]["provider_arrivals_by_outcome"];
  CHECK(arrivals["counts"].size() == 1);
  CHECK(overflow_total(arrivals) == 2);
}

TEST_CASE("merge: shards of a hundred-hour wait add their overflow bins, byte for byte") {
  const TempDir dir;
  const std::vector<std::string> sim{"simulate", "--quiet",     "--no-report",   "--clients", "4",
                                     "--outage", "0s-100h:503", "--retry-after", "exact"};
  const auto whole = dir.file("whole.json");
  REQUIRE(run_binary("loadgen", with(sim, {"--out", whole}), kHostileRunBoundMs).code == 0);
  std::vector<std::string> merge{"merge", "--quiet", "-o", dir.file("merged.json")};
  for (const std::string shard : {"0/2", "1/2"}) {
    const auto out = dir.file("shard-" + shard.substr(0, 1) + ".json");
    REQUIRE(run_binary("loadgen", with(sim, {"--shard", shard, "--out", out}), kHostileRunBoundMs)
                .code == 0);
    merge.push_back(out);
  }
  const auto m = run_binary("loadgen", merge, kHostileRunBoundMs);
  INFO(m.err);
  CHECK(m.code == 0);
  CHECK(read_file(dir.file("merged.json")) == read_file(whole));
  CHECK(overflow_total(json::parse(read_file(whole))["histograms"]["client_sends_by_outcome"]) ==
        4);
}

TEST_CASE("report: an older document with more rows than the bound still reads, its report small") {
  // What a binary before the bound wrote for a long run: a row per second, 100,000 of them.
  const TempDir dir;
  const auto out = dir.file("results.json");
  REQUIRE(
      run_binary("loadgen",
                 with(outage_sim("0s-100h:503", "exact"), {"--quiet", "--no-report", "--out", out}),
                 kHostileRunBoundMs)
          .code == 0);
  auto doc = json::parse(read_file(out));
  auto& rows = doc["histograms"]["client_sends_by_outcome"]["counts"];
  const json zeros = std::vector<std::int64_t>(rows[0].size(), 0);
  while (rows.size() < 100'000) rows.push_back(zeros);
  rows.back()[0] = 7;
  const auto old = dir.write("old.json", doc.dump());
  const auto html = dir.file("old.html");
  const auto r = run_binary("loadgen", {"report", "--quiet", old, "-o", html}, kHostileRunBoundMs);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(size_of(html) > 0);
  CHECK(size_of(html) < kSmallFile);
  static_assert(stampede::BinnedCounts::kMaxBins < 100'000);
}
