// The open model (steady, stages) in `loadgen run` against the real fakeprovider: arrivals
// keep their schedule whatever the clients' backoff, and those that find no free client are
// dropped and counted. Checks read the run's own records (scenario time), never the wall.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

std::int64_t count_of(const json& r, const char* name) {
  return r["counts"][name].get<std::int64_t>();
}

// The clients' first sends per second (the histogram's label "1").
std::vector<std::int64_t> first_sends_per_second(const json& r) {
  const auto& h = r["histograms"]["client_sends_by_send"];
  REQUIRE(h["bin_ms"] == 1000);
  std::vector<std::int64_t> out;
  for (const auto& bin : h["counts"]) out.push_back(bin[0].get<std::int64_t>());
  return out;
}

std::int64_t sum(const std::vector<std::int64_t>& v, std::size_t from, std::size_t to) {
  std::int64_t n = 0;
  for (std::size_t i = from; i < to && i < v.size(); ++i) n += v[i];
  return n;
}

}  // namespace

TEST_CASE("live: steady with a small pool through an outage drops arrivals, and loses none") {
  // 20 arrivals a second for 30 s at 8 clients; the outage holds every client in its backoff
  // (exponential from 2 s) for its 20 s, so most of what arrives then finds none free.
  FakeProvider p({"--outage", "0s-20s:503", "--time-scale", "0.05"});
  REQUIRE(p.started());
  const auto r =
      run_loadgen({"--url",      p.url(), "--provider-admin", p.admin(),     "--time-scale", "0.05",
                   "--clients",  "8",     "--workload",       "steady",      "--rate",       "20/s",
                   "--duration", "30s",   "--strategy",       "exponential", "--base",       "2s",
                   "--cap",      "4s",    "--max-attempts",   "20"});
  INFO(r.err);
  REQUIRE(r.results.is_object());
  const auto& j = r.results;
  CHECK(count_of(j, "items") == 600);
  const auto dropped = count_of(j, "dropped");
  CHECK(dropped > 0);
  CHECK(count_of(j, "delivered") > 0);
  CHECK(count_of(j, "delivered") + count_of(j, "dead_lettered") + count_of(j, "unfinished") +
            dropped ==
        600);
  CHECK(j["summary"]["dropped"].get<double>() == static_cast<double>(dropped));
  // A dropped item is never sent: the first sends are the items that found a client.
  CHECK(sum(first_sends_per_second(j), 0, 1000) == 600 - dropped);
  CHECK(j["provider"]["requests"] == count_of(j, "requests"));
}

TEST_CASE("live: stages ramp the clients' first sends up, hold them, and ramp them down") {
  // The shape is a second's count: under TSan, whose loops run many times slower, the stages
  // play in real time so a late wake stays within its second.
  const std::string scale = kTimingExact ? "0.2" : "1";
  FakeProvider p({"--time-scale", scale});
  REQUIRE(p.started());
  const auto r = run_loadgen({"--url", p.url(), "--provider-admin", p.admin(), "--time-scale",
                              scale, "--clients", "200", "--stages", "6s:40/s,4s:40/s,6s:0/s"});
  INFO(r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  const auto& j = r.results;
  CHECK(j["scenario"]["fleet"]["workload"] == "steady");
  CHECK(j["scenario"]["fleet"]["stages"] == "6s:40/s,4s:40/s,6s:0/s");
  CHECK(count_of(j, "items") == 120 + 160 + 120);
  CHECK(count_of(j, "dropped") == 0);
  CHECK(count_of(j, "delivered") == 400);
  const auto sends = first_sends_per_second(j);
  // In thirds of each ramp (2 s each), expected 13, 40, 67 up; 80 per 2 s held; 67, 40, 13
  // down. A loop that wakes late moves a send into the next second, never out of the run:
  // the shape is asserted, with room for that, not the exact counts.
  const std::int64_t up1 = sum(sends, 0, 2), up2 = sum(sends, 2, 4), up3 = sum(sends, 4, 6);
  const std::int64_t held = sum(sends, 6, 10);
  const std::int64_t down1 = sum(sends, 10, 12), down2 = sum(sends, 12, 14),
                     down3 = sum(sends, 14, 17);
  CAPTURE(up1);
  CAPTURE(up2);
  CAPTURE(up3);
  CAPTURE(held);
  CAPTURE(down1);
  CAPTURE(down2);
  CAPTURE(down3);
  CHECK(up1 < up2);
  CHECK(up2 < up3);
  CHECK(held > 2 * up2);
  CHECK(down1 > down2);
  CHECK(down2 > down3);
  CHECK(up1 + up2 + up3 + held + down1 + down2 + down3 == 400);
}
