// loadgen run --workload trace against the real fakeprovider: a trace file's arrivals are the
// fleet's first sends, every one of them, in the seconds the trace has them. Checks read the
// run's own records (scenario time), never the wall.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/nginx.hpp"
#include "support/process.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;
using support::NginxStaging;
using support::start_nginx;

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

// Requests per second of a log whose lines end with nginx's $msec, each second counted from the
// first line's time (whole: $time_local's seconds) as the replay counts them.
std::vector<std::int64_t> log_per_second(const std::string& log, bool whole_seconds) {
  std::vector<std::int64_t> out;
  double first = -1;
  for (const auto& line : lines(read_file(log))) {
    if (line.empty()) continue;
    double t = std::stod(line.substr(line.rfind(' ') + 1));
    if (whole_seconds) t = std::floor(t);
    if (first < 0) first = t;
    const auto s = static_cast<std::size_t>(std::floor(t - first));
    if (out.size() <= s) out.resize(s + 1);
    ++out[s];
  }
  return out;
}

std::vector<std::int64_t> simulated_first_sends(const std::string& trace, const std::string& out) {
  const auto r = run_binary("loadgen", {"simulate", "--workload", "trace", "--trace", trace,
                                        "--clients", "100", "--out", out, "--no-report", "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return first_sends_per_second(json::parse(read_file(out)));
}

// A per-second column of a results histogram, trailing empty seconds cut.
std::vector<std::int64_t> column(const json& h, std::size_t label) {
  REQUIRE(h["bin_ms"] == 1000);
  std::vector<std::int64_t> out;
  for (const auto& bin : h["counts"]) out.push_back(bin[label].get<std::int64_t>());
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

std::int64_t largest_difference(std::vector<std::int64_t> a, std::vector<std::int64_t> b) {
  a.resize(std::max(a.size(), b.size()));
  b.resize(a.size());
  std::int64_t most = 0;
  for (std::size_t s = 0; s < a.size(); ++s) most = std::max(most, std::abs(a[s] - b[s]));
  return most;
}

// The run's trace section: the trace's side is exact, the lag is measured for every first
// send, and the fidelity is what the clients' and the provider's own counts say it is.
void check_trace_section(const json& j, std::int64_t items) {
  REQUIRE(j.contains("trace"));
  const auto& t = j["trace"];
  CHECK(column(t["arrivals"], 0) == kPerSecond);
  CHECK(t["first_send_lag_ns"]["count"] == items);
  const double p50 = t["lag_p50_ms"], p99 = t["lag_p99_ms"], max = t["lag_max_ms"];
  CHECK(0 <= p50);
  CHECK(p50 <= p99);
  CHECK(p99 <= max);
  CHECK(max == static_cast<double>(t["first_send_lag_ns"]["max"].get<std::int64_t>()) / 1e6);
  const auto first_sends = first_sends_per_second(j);
  CHECK(t["max_second_difference"] == largest_difference(kPerSecond, first_sends));
  // No arrival was dropped: as many gaps between first sends as between arrivals.
  CHECK(t["first_send_gaps_ns"]["count"] == t["arrival_gaps_ns"]["count"]);
  const double ks = t["gaps_ks"];
  CHECK(0 <= ks);
  CHECK(ks <= 1);
  // The provider counted the first sends too (X-Attempt: 1): they reached it in the seconds
  // the clients sent them, unless timing is not exact here.
  const auto provider = column(j["histograms"]["provider_arrivals_by_send"], 0);
  std::int64_t provider_total = 0;
  for (const auto n : provider) provider_total += n;
  CHECK(provider_total == items);
  if (kTimingExact) {
    CHECK(provider == first_sends);
    CHECK(t["max_second_difference"] == 0);
  }
}

}  // namespace

TEST_CASE(
    "live: nginx's own access logs, $msec and combined, replay as their requests per second") {
  const auto started = start_nginx();
  if (!started) return;
  NginxStaging& nginx = *started;
  // A burst, a lull, a smaller one, a longer lull, a large one: when each lands is nginx's
  // clock; the replay is held to what the log says, not to this schedule.
  for (const int burst : {15, 0, 3, 0, 0, 25}) {
    for (int i = 0; i < burst; ++i) CHECK(http(nginx.http_port(), "GET", "/v1").status == 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  nginx.stop_and_read_log();
  const auto timed = log_per_second(nginx.msec_log(), false);
  const auto whole = log_per_second(nginx.msec_log(), true);
  std::int64_t total = 0;
  for (const auto n : timed) total += n;
  REQUIRE(total == 43);
  const TempDir dir;
  CHECK(simulated_first_sends(nginx.msec_log(), dir.file("msec.json")) == timed);
  // $time_local's whole seconds, each spread within its own: the seconds keep their counts.
  CHECK(simulated_first_sends(nginx.combined_log(), dir.file("combined.json")) == whole);
}

TEST_CASE(
    "live: --workload trace sends the trace's arrivals as the first sends, second by second") {
  // Under the sanitizers, whose loops run several times slower, the trace plays in real time:
  // each arrival has a quarter second of room in its second, not the 50 ms of --time-scale 0.2
  // (ASan beside three other cases once sent a burst's first sends a second late).
  const std::string scale = kSanitized ? "1" : "0.2";
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
  check_trace_section(j, 66);
}

TEST_CASE("live: a trace run in two processes merges its trace section as one process's") {
  const std::string scale = kTimingExact ? "0.2" : "1";
  FakeProvider p({"--allowance", "10/s", "--time-scale", scale});
  REQUIRE(p.started());
  const TempDir dir;
  const auto r = run_loadgen({"--url", p.url(), "--provider-admin", p.admin(), "--time-scale",
                              scale, "--clients", "200", "--workload", "trace", "--trace",
                              dir.write("trace.csv", trace_csv()), "--processes", "2"});
  INFO(r.err);
  REQUIRE(r.results.is_object());
  CHECK(r.results["counts"]["dropped"] == 0);
  check_trace_section(r.results, 66);
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
