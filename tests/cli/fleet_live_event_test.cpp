// loadgen run --dashboard's events from the run's progress snapshots: pure, by tables.
#include <doctest/doctest.h>

#include <vector>

#include "cli/fleet_live_event.hpp"
#include "duration.hpp"

using namespace stampede;

namespace {

// A snapshot at wall second `s` with these cumulative counts (every answered ok delivered).
LiveProgress snapshot(double s, std::int64_t sent, std::int64_t ok, std::int64_t rate_limited,
                      std::int64_t server_errors, std::int64_t errors) {
  return {.elapsed_ns = static_cast<std::int64_t>(s * kNsPerSec),
          .sent = sent,
          .ok = ok,
          .rate_limited = rate_limited,
          .server_errors = server_errors,
          .errors = errors,
          .in_backoff = 0,
          .delivered = ok,
          .dead_lettered = 0};
}

}  // namespace

TEST_CASE("fleet live events: each second's answers in its bin, by outcome, scaled time") {
  struct Case {
    const char* what;
    double time_scale;
    std::vector<LiveProgress> snapshots;
    std::vector<std::vector<std::int64_t>> bins;  // ok, 429, 503, 529, 5xx, 4xx, connect_error
  };
  const std::vector<Case> cases{
      {"nothing yet", 1, {snapshot(0, 0, 0, 0, 0, 0)}, {}},
      {"a second's answers go to the second they were read in",
       1,
       {snapshot(0, 0, 0, 0, 0, 0), snapshot(1, 10, 4, 5, 0, 1), snapshot(2, 20, 8, 8, 2, 1)},
       {{4, 5, 0, 0, 0, 0, 1}, {4, 3, 0, 0, 2, 0, 0}}},
      {"at --time-scale 0.5 a wall second is two scenario seconds",
       0.5,
       {snapshot(0, 0, 0, 0, 0, 0), snapshot(1, 3, 3, 0, 0, 0), snapshot(2, 5, 5, 0, 0, 0)},
       {{3, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0, 0}}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    FleetLiveBins bins(c.time_scale);
    for (const auto& s : c.snapshots) bins.add(s);
    REQUIRE(bins.by_outcome().bins() == c.bins.size());
    for (std::size_t b = 0; b < c.bins.size(); ++b) {
      for (std::size_t l = 0; l < c.bins[b].size(); ++l)
        CHECK(bins.by_outcome().at(b, l) == c.bins[b][l]);
    }
  }
}

TEST_CASE("fleet live events: the page's fields, every bin, the fleet's items") {
  FleetLiveBins bins(1);
  bins.add(snapshot(0, 0, 0, 0, 0, 0));
  auto last = snapshot(1, 12, 4, 5, 1, 1);
  last.in_backoff = 3;
  last.dead_lettered = 2;
  bins.add(last);
  const auto e =
      bins.event(5, Rate{20, kNsPerSec}, {{kNsPerSec, 2 * kNsPerSec, OutageAction::kStatus503}});
  CHECK(e.at("seq") == 5);
  CHECK(e.at("from_bin") == 0);
  CHECK(e.at("clock_ns") == kNsPerSec);
  CHECK(e.at("arrivals_by_outcome").at("counts").size() == 1);
  CHECK(e.at("arrivals_by_send").at("counts").empty());
  CHECK(e.at("requests") == 12);
  CHECK(e.at("admitted") == 4);
  CHECK(e.at("refused") == 7);
  CHECK(e.at("fleet").at("in_flight") == 1);  // sent, not yet answered
  CHECK(e.at("fleet").at("delivered") == 4);
  CHECK(e.at("fleet").at("dead_lettered") == 2);
  CHECK(e.at("fleet").at("in_backoff") == 3);
  CHECK(e.at("allowance").at("text") == "20/s");
  CHECK(e.at("outages").at(0).at("outage") == "1s-2s:503");
}

TEST_CASE("exec live events: the provider's bins and the processes' ends") {
  ProviderStats stats;
  stats.clock_ns = 2 * kNsPerSec;
  stats.requests = 9;
  stats.by_outcome = BinnedCounts(kNsPerSec, kOutcomeCount);
  stats.by_outcome.add(100, static_cast<std::size_t>(Outcome::kOk), 3);
  stats.by_outcome.add(kNsPerSec + 1, static_cast<std::size_t>(Outcome::kRateLimited), 6);
  stats.by_send = BinnedCounts(kNsPerSec, kSendLabels);
  stats.by_send.add(100, 0, 9);
  const ExecProgress progress{.elapsed_ns = 2 * kNsPerSec,
                              .released = true,
                              .running = 4,
                              .ended = 6,
                              .delivered = 5,
                              .dead_lettered = 1};
  const auto e = exec_live_event(stats, progress, 3, std::nullopt, {});
  CHECK(e.at("seq") == 3);
  CHECK(e.at("clock_ns") == 2 * kNsPerSec);
  CHECK(e.at("requests") == 9);
  CHECK(e.at("admitted") == 3);
  CHECK(e.at("refused") == 6);
  CHECK(e.at("arrivals_by_outcome").at("counts").size() == 2);
  CHECK(e.at("arrivals_by_send").at("counts").size() == 1);
  CHECK(e.at("allowance").is_null());
  CHECK(e.at("fleet") == nlohmann::json{{"delivered", 5},
                                        {"dead_lettered", 1},
                                        {"processes_running", 4},
                                        {"processes_ended", 6}});
}
