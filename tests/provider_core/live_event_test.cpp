// The live stream's event builder (recording/live_event): pure, tested by tables.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "duration.hpp"
#include "live_fields.hpp"
#include "recording/live_event.hpp"
#include "support/sanitized.hpp"

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

TEST_CASE("live snapshot: 300,000 tenants copied a bounded slice at a time, summed after") {
  // Two recorders (server threads), each with most tenants of the other: t0 .. t299999, the
  // busiest ones a few arrivals more, and "busy" 429s in both.
  // A sanitizer tree copies a tenth (38 s of TSan's case time for 300,000): still some 30
  // slices a recorder.
  constexpr int kTenants = support::kSanitized ? 30'000 : 300'000;
  ArrivalStats a(kNsPerSec), b(kNsPerSec);
  const SendAttribution first{SendStatus::kAttributed, SendRule::kXAttempt, 1};
  for (int i = 0; i < kTenants; ++i) {
    const std::string name = "t" + std::to_string(i);
    (i % 3 == 0 ? b : a).record(0, name, Outcome::kOk, first);
    if (i % 2 == 0) b.record(0, name, Outcome::kOk, first);
  }
  for (int n = 0; n < 5; ++n) {
    a.record(0, "busy", Outcome::kRateLimited, first);
    b.record(0, "busy", Outcome::kRateLimited, first);
    a.record(0, "t7", Outcome::kOk, first);
  }
  ArrivalStats merged(kNsPerSec);
  std::vector<std::vector<LiveTenant>> lists(2);
  std::size_t slices = 0;
  for (std::size_t r = 0; r < 2; ++r) {
    const ArrivalStats& stats = r == 0 ? a : b;
    merged.merge(stats);
    std::optional<std::string> after;
    for (bool done = false; !done; ++slices) {
      const std::size_t before = lists[r].size();
      done = copy_tenant_slice(stats, after, kLiveTenantSlice, lists[r]);
      // What a hold of the recorder's lock copies: one slice at most, whatever the tenants.
      CHECK(lists[r].size() - before <= kLiveTenantSlice);
    }
    CHECK(lists[r].size() == stats.tenants().size());
  }
  CHECK(slices >= merged.tenants().size() / kLiveTenantSlice);
  const auto summed = sum_tenants(lists);
  CHECK(summed.seen == static_cast<std::int64_t>(merged.tenants().size()));
  CHECK(summed.seen == kTenants + 1);
  const auto exact = top_tenants(merged);
  REQUIRE(summed.top.size() == exact.size());
  for (std::size_t i = 0; i < exact.size(); ++i) {
    CAPTURE(i);
    CHECK(summed.top[i].tenant == exact[i].tenant);
    CHECK(summed.top[i].requests == exact[i].requests);
    CHECK(summed.top[i].rate_limited == exact[i].rate_limited);
  }
  CHECK(summed.top[0].tenant == "busy");
  CHECK(summed.top[1].tenant == "t7");
}

TEST_CASE("live snapshot: a tenant added between two slices is copied if it comes after them") {
  ArrivalStats s(kNsPerSec);
  const SendAttribution first{SendStatus::kAttributed, SendRule::kXAttempt, 1};
  for (const char* t : {"b", "d", "f"}) s.record(0, t, Outcome::kOk, first);
  std::vector<LiveTenant> out;
  std::optional<std::string> after;
  CHECK_FALSE(copy_tenant_slice(s, after, 2, out));
  CHECK(after == "d");
  s.record(0, "a", Outcome::kOk, first);  // behind: the next snapshot has it
  s.record(0, "e", Outcome::kOk, first);
  CHECK(copy_tenant_slice(s, after, 2, out));
  std::vector<std::string> names;
  for (const auto& t : out) names.push_back(t.tenant);
  CHECK(names == std::vector<std::string>{"b", "d", "e", "f"});
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
  // The pace: 1 arrival in 2-3 s, the last whole second; none since the outage ended at 3 s.
  const auto& pace = e.at("pace");
  CHECK(pace.at("now_per_s") == 1.0);
  CHECK(pace.at("now_from_s") == 2.0);
  CHECK(pace.at("now_to_s") == 3.0);
  CHECK(pace.at("peak_from_s") == 3.0);
  CHECK(pace.at("peak_per_s") == 0.0);
  CHECK(pace.at("peak_ratio") == 0.0);
  // Not a proxy: no upstream. A proxy: its admitted arrivals were forwarded.
  CHECK(e.at("upstream").is_null());
  s.proxy = true;
  CHECK(live_event(s, 0, 8).at("upstream") ==
        nlohmann::json{
            {"forwarded", 2}, {"upstream_429", 0}, {"upstream_5xx", 0}, {"upstream_error", 0}});
}

TEST_CASE("live events: one server-sent event, its data on one line") {
  const nlohmann::json e{{"seq", 4}, {"tenant", "a\nb"}};
  CHECK(live_sse_message(e, 4) == "id: 4\ndata: {\"seq\":4,\"tenant\":\"a\\nb\"}\n\n");
}
