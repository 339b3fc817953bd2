// occ mode over real HTTP: loadgen run against fakeprovider --mode occ, 100 clients, each a
// GET /row, then a PUT /row with If-Match, and after a 412 the backoff and a fresh GET.
// No wall-clock threshold: the checks compare the strategies' own counts and drain times, live
// and simulated (the simulation's hops are 10 ms, the loopback's far less).
//
// --time-scale shrinks the backoffs but not the harness's own timing noise, which the provider
// sees scaled up by 1/scale: at 0.1 a millisecond of send lateness is 10 ms of scenario time,
// enough to break much of exponential backoff's lockstep on a busy machine (its writes came out
// 950-1,550 here, about full jitter's 850-1,050 at worst; simulated 1,870). So the quick test
// (0.1, about 7 s of wall time) checks what holds through that noise, the drain times; the
// full one, writes too, unscaled (about 70 s), runs when asked:
//   STAMPEDE_LONG_TESTS=1 build/bin/test_live -tc='*occ*'
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "live_harness.hpp"

using namespace live_test;
using nlohmann::json;

namespace {

struct Figures {
  double writes = 0;
  double drain_s = 0;
  double simulated_writes = 0;
  double simulated_drain_s = 0;
};

bool long_tests() {
  const char* v = std::getenv("STAMPEDE_LONG_TESTS");
  return v && std::string(v) == "1";
}

Figures run_occ(const std::string& scale, const std::string& strategy, const std::string& base) {
  FakeProvider p({"--mode", "occ", "--time-scale", scale});
  REQUIRE(p.started());
  const std::string row = p.url().substr(0, p.url().find("/v1/messages")) + "/row";
  const auto r = run_loadgen({"--mode", "occ", "--url", row, "--provider-admin", p.admin(),
                              "--time-scale", scale, "--clients", "100", "--strategy", strategy,
                              "--base", base, "--cap", "2s", "--assert", "delivered == items"});
  INFO(strategy << ": " << r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  const auto& j = r.results;
  const auto stats = p.stats();
  REQUIRE(stats.is_object());
  const auto conflicts = stats.at("totals").at("4xx").get<std::int64_t>();
  // Every write the clients sent reached the row, and each one that lost got a 412; every
  // other request was answered 200.
  CHECK(j["counts"]["writes"].get<std::int64_t>() == 100 + conflicts);
  CHECK(stats.at("totals").at("ok").get<std::int64_t>() ==
        j["counts"]["requests"].get<std::int64_t>() - conflicts);
  const Figures f{j["summary"]["writes"].get<double>(), j["summary"]["drain_s"].get<double>(),
                  j["comparison"]["simulated"]["writes"].get<double>(),
                  j["comparison"]["simulated"]["drain_s"].get<double>()};
  MESSAGE(strategy << " at --time-scale " << scale << ": live " << f.writes << " writes, drain "
                   << f.drain_s << " s; simulated " << f.simulated_writes << " writes, drain "
                   << f.simulated_drain_s << " s");
  return f;
}

}  // namespace

TEST_CASE("live occ, 100 clients at --time-scale 0.1: no jitter drains far later than jitter") {
  const Figures exponential = run_occ("0.1", "exponential", "10ms");
  const Figures full = run_occ("0.1", "full-jitter", "10ms");
  const Figures decorrelated = run_occ("0.1", "decorrelated-jitter", "5ms");
  for (const auto& [name, f] : {std::pair{"full jitter", full}, {"decorrelated", decorrelated}}) {
    CAPTURE(name);
    CHECK(exponential.simulated_drain_s > f.simulated_drain_s);
    CHECK(exponential.drain_s > f.drain_s);
  }
}

TEST_CASE("live occ, 100 clients, unscaled: the simulation's order of writes and drain times" *
          doctest::skip(!long_tests())) {
  const Figures exponential = run_occ("1", "exponential", "10ms");
  const Figures full = run_occ("1", "full-jitter", "10ms");
  const Figures decorrelated = run_occ("1", "decorrelated-jitter", "5ms");
  for (const auto& [name, f] : {std::pair{"full jitter", full}, {"decorrelated", decorrelated}}) {
    CAPTURE(name);
    CHECK(exponential.simulated_writes > f.simulated_writes);
    CHECK(exponential.writes > f.writes);
    CHECK(exponential.simulated_drain_s > f.simulated_drain_s);
    CHECK(exponential.drain_s > f.drain_s);
  }
}
