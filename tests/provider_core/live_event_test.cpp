// The live stream's event builder (recording/live_event): pure, tested by tables.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "duration.hpp"
#include "live_fields.hpp"
#include "recording/live_event.hpp"

using namespace stampede;

namespace {

// Arrivals at these seconds, each a first send answered ok, or 429 for the tenant "busy".
ArrivalStats arrivals_at(const std::vector<std::pair<double, std::string>>& arrivals) {
  ArrivalStats s(kNsPerSec);
  for (const auto& [second, tenant] : arrivals) {
    const auto outcome = tenant == "busy" ? Outcome::kRateLimited : Outcome::kOk;
    s.record(static_cast<std::int64_t>(second * kNsPerSec), tenant, outcome,
             {SendStatus::kAttributed, SendRule::kXAttempt, 1});
  }
  return s;
}

}  // namespace

TEST_CASE("live events: the first bin that changed is where an event's bins start") {
  struct Case {
    const char* what;
    std::vector<std::pair<double, std::string>> before, now;
    std::size_t from;
  };
  const std::vector<Case> cases{
      {"nothing yet, nothing now", {}, {}, 0},
      {"nothing changed", {{0.5, "a"}, {2.5, "a"}}, {{0.5, "a"}, {2.5, "a"}}, 3},
      {"a new bin", {{0.5, "a"}}, {{0.5, "a"}, {3.5, "a"}}, 1},
      {"the last bin grew", {{0.5, "a"}, {1.5, "a"}}, {{0.5, "a"}, {1.5, "a"}, {1.7, "a"}}, 1},
      {"a reset: fewer bins", {{0.5, "a"}, {4.5, "a"}}, {{0.5, "a"}}, 1},
      {"a reset: other counts", {{0.5, "a"}, {4.5, "a"}}, {{0.5, "busy"}}, 0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    CHECK(first_changed_bin(arrivals_at(c.before), arrivals_at(c.now)) == c.from);
  }
}

TEST_CASE("live events: the busiest ten tenants, ties by name, with their 429s") {
  std::vector<std::pair<double, std::string>> arrivals;
  for (int i = 0; i < 12; ++i) {
    for (int n = 0; n <= i; ++n) arrivals.emplace_back(0.5, "t" + std::to_string(100 + i));
  }
  for (int n = 0; n < 11; ++n) arrivals.emplace_back(0.5, "busy");
  const auto top = top_tenants(arrivals_at(arrivals));
  REQUIRE(top.size() == kLiveTopTenants);
  CHECK(top[0].tenant == "t111");
  CHECK(top[0].requests == 12);
  CHECK(top[0].rate_limited == 0);
  CHECK(top[1].tenant == "busy");  // 11 arrivals, before t110 by name
  CHECK(top[1].rate_limited == 11);
  CHECK(top[2].tenant == "t110");
  CHECK(top[9].tenant == "t103");
}

TEST_CASE("live events: the bins from from_bin, the totals, limits, outages and tenants") {
  LiveSnapshot s;
  s.clock_ns = 3 * kNsPerSec + 1;
  s.counts = arrivals_at({{0.5, "a"}, {1.5, "busy"}, {2.5, "a"}});
  s.top_tenants = top_tenants(s.counts);
  s.tenants_seen = 2;
  s.allowance = Rate{100, kNsPerSec * 60};
  s.outages = {{2 * kNsPerSec, 3 * kNsPerSec, OutageAction::kStatus529}};
  s.streams = 3;
  const auto e = live_event(s, 1, 7);
  CHECK(e.at("seq") == 7);
  CHECK(e.at("clock_ns") == s.clock_ns);
  CHECK(e.at("bin_ms") == 1000);
  CHECK(e.at("from_bin") == 1);
  const auto& outcome = e.at("arrivals_by_outcome");
  CHECK(outcome.at("labels").at(1) == "429");
  REQUIRE(outcome.at("counts").size() == 2);  // bins 1 and 2
  CHECK(outcome.at("counts").at(0).at(1) == 1);
  CHECK(outcome.at("counts").at(1).at(0) == 1);
  CHECK(e.at("arrivals_by_send").at("counts").size() == 2);
  CHECK(e.at("requests") == 3);
  CHECK(e.at("admitted") == 2);
  CHECK(e.at("refused") == 1);
  CHECK(e.at("arrivals").at("totals").at("429") == 1);
  CHECK(e.at("allowance").at("text") == "100/min");
  CHECK(e.at("allowance").at("per_s").get<double>() == doctest::Approx(100.0 / 60));
  CHECK(e.at("capacity").is_null());
  CHECK(e.at("outages").at(0).at("outage") == "2s-3s:529");
  CHECK(e.at("top_tenants").at(0).at("tenant") == "a");
  CHECK(e.at("top_tenants").at(1).at("share_429") == 1.0);
  CHECK(e.at("streams") == 3);
  CHECK(e.at("lockstep").at("share") == 0.0);
}

TEST_CASE("live events: one server-sent event, its data on one line") {
  const nlohmann::json e{{"seq", 4}, {"tenant", "a\nb"}};
  CHECK(live_sse_message(e, 4) == "id: 4\ndata: {\"seq\":4,\"tenant\":\"a\\nb\"}\n\n");
}
