// loadgen run --workload trace against the real fakeprovider: a trace file's arrivals are the
// fleet's first sends, every one of them, in the seconds the trace has them. Checks read the
// run's own records (scenario time), never the wall.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/loadgen_run.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// A bursty trace, this many arrivals in each second, each within the second's middle half so
// a loop that wakes a little late keeps it in its second.
const std::vector<std::int64_t> kPerSecond{12, 0, 30, 4, 20};

std::string trace_csv() {
  std::string text = "time,path\n";
  for (std::size_t s = 0; s < kPerSecond.size(); ++s) {
    for (std::int64_t i = 0; i < kPerSecond[s]; ++i) {
      const auto ms = 250 + i * 500 / kPerSecond[s];
      text += std::to_string(s) + "." + std::to_string(1000 + ms).substr(1) + ",/v1\n";
    }
  }
  return text;
}

std::vector<std::int64_t> first_sends_per_second(const json& r) {
  const auto& h = r["histograms"]["client_sends_by_send"];
  REQUIRE(h["bin_ms"] == 1000);
  std::vector<std::int64_t> out;
  for (const auto& bin : h["counts"]) out.push_back(bin[0].get<std::int64_t>());
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

}  // namespace

TEST_CASE(
    "live: --workload trace sends the trace's arrivals as the first sends, second by second") {
  // Under TSan, whose loops run many times slower, the trace plays in real time.
  const std::string scale = kTimingExact ? "0.2" : "1";
  FakeProvider p({"--allowance", "10/s", "--time-scale", scale});
  REQUIRE(p.started());
  const TempDir dir;
  const auto trace = dir.write("trace.csv", trace_csv());
  const auto r = run_loadgen({"--url", p.url(), "--provider-admin", p.admin(), "--time-scale",
                              scale, "--clients", "200", "--workload", "trace", "--trace", trace,
                              "--strategy", "exponential", "--max-attempts", "2"});
  INFO(r.err);
  REQUIRE(r.results.is_object());
  const auto& j = r.results;
  CHECK(j["scenario"]["fleet"]["workload"] == "trace");
  CHECK(j["counts"]["items"] == 66);
  CHECK(j["counts"]["dropped"] == 0);
  const auto sends = first_sends_per_second(j);
  std::int64_t total = 0;
  for (const auto n : sends) total += n;
  CHECK(total == 66);
  // Under TSan a burst spreads past the quarter second of room each arrival has.
  if (kTimingExact) CHECK(sends == kPerSecond);
  // The provider's limit made some retry: what the trace adds is the first sends only.
  CHECK(j["counts"]["requests"].get<std::int64_t>() > 66);
}

TEST_CASE("live: a bad trace stops loadgen run before any load, naming its line") {
  FakeProvider p({});
  REQUIRE(p.started());
  const TempDir dir;
  const auto trace = dir.write("trace.csv", "time\n1.0\nsoon\n");
  const auto r = run_loadgen(
      {"--url", p.url(), "--provider-admin", p.admin(), "--workload", "trace", "--trace", trace});
  CHECK(r.code == 2);
  CHECK(r.err.find("line 3, column 1: 'soon' is not a time") != std::string::npos);
  CHECK_FALSE(r.results.is_object());
}
