// loadgen run/exec --dashboard's events from the run's recording, progress and the provider's
// stats: pure, by tables.
#include <doctest/doctest.h>

#include <vector>

#include "cli/fleet_live_event.hpp"
#include "duration.hpp"

using namespace stampede;

namespace {

// Sends at these scenario seconds, by send number, with these outcomes.
struct Send {
  double s;
  int send;
  Outcome outcome;
};

Recording recording_of(const std::vector<Send>& sends) {
  Recording r;
  for (const auto& x : sends)
    r.record_send(static_cast<std::int64_t>(x.s * kNsPerSec), x.send, x.outcome);
  return r;
}

LiveProgress progress_at(double wall_s, std::int64_t sent, std::int64_t ok) {
  return {.elapsed_ns = static_cast<std::int64_t>(wall_s * kNsPerSec),
          .sent = sent,
          .ok = ok,
          .rate_limited = 0,
          .server_errors = 0,
          .errors = 0,
          .in_backoff = 0,
          .delivered = ok,
          .dead_lettered = 0};
}

const std::optional<Parsed<ProviderStats>> kNoProvider;

}  // namespace

TEST_CASE("run live events: the clients' answers by outcome and sends by send number, per second") {
  const auto rec = recording_of({{0.2, 1, Outcome::kOk},
                                 {0.5, 1, Outcome::kRateLimited},
                                 {1.5, 2, Outcome::kRateLimited},
                                 {2.1, 3, Outcome::kOk},
                                 {2.2, 1, Outcome::kOk}});
  const auto progress = progress_at(3, 6, 3);
  const auto e = run_live_event({rec, progress, 1, kNoProvider}, 1, std::nullopt, {});
  const auto& by_outcome = e.at("arrivals_by_outcome").at("counts");
  const auto& by_send = e.at("arrivals_by_send").at("counts");
  REQUIRE(by_outcome.size() == 3);
  REQUIRE(by_send.size() == 3);
  const auto ok = static_cast<std::size_t>(Outcome::kOk);
  const auto r429 = static_cast<std::size_t>(Outcome::kRateLimited);
  CHECK(by_outcome[0][ok] == 1);
  CHECK(by_outcome[0][r429] == 1);
  CHECK(by_outcome[1][r429] == 1);
  CHECK(by_outcome[2][ok] == 2);
  // Send numbers 1, 2, 3 are labels 0, 1, 2: the retries' waves as the fleet sent them.
  CHECK(by_send[0] ==
        nlohmann::json(std::vector<int>{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  CHECK(by_send[1][1] == 1);
  CHECK(by_send[2][0] == 1);
  CHECK(by_send[2][2] == 1);
  CHECK(e.at("arrivals_by_send").at("labels").at(0) == "1");
  CHECK(e.at("admitted") == 3);
  CHECK(e.at("refused") == 2);
  CHECK(e.at("requests") == 6);  // sent, the one not answered yet too
  CHECK(e.at("fleet").at("in_flight") == 3);
}

TEST_CASE("run live events: the page's fields, scaled time, the fleet's items, the lateness") {
  Recording rec = recording_of({{0.5, 1, Outcome::kOk}});
  for (const std::int64_t late_us : {100, 200, 300, 400, 50'000})
    rec.lateness_ns.record(late_us * 1000);
  auto progress = progress_at(2, 12, 4);
  progress.rate_limited = 5;
  progress.server_errors = 1;
  progress.errors = 1;
  progress.in_backoff = 3;
  progress.dead_lettered = 2;
  // At --time-scale 0.5 two wall seconds are four scenario seconds.
  const auto e = run_live_event({rec, progress, 0.5, kNoProvider}, 5, Rate{20, kNsPerSec},
                                {{kNsPerSec, 2 * kNsPerSec, OutageAction::kStatus503}});
  CHECK(e.at("seq") == 5);
  CHECK(e.at("from_bin") == 0);
  CHECK(e.at("clock_ns") == 4 * kNsPerSec);
  CHECK(e.at("bin_ms") == 1000);
  CHECK(e.at("fleet").at("in_flight") == 1);  // sent, not yet answered
  CHECK(e.at("fleet").at("delivered") == 4);
  CHECK(e.at("fleet").at("dead_lettered") == 2);
  CHECK(e.at("fleet").at("in_backoff") == 3);
  CHECK(e.at("allowance").at("text") == "20/s");
  CHECK(e.at("outages").at(0).at("outage") == "1s-2s:503");
  const auto& late = e.at("lateness");
  CHECK(late.at("sends") == 5);
  CHECK(late.at("p50_ms").get<double>() == doctest::Approx(0.3).epsilon(0.02));
  CHECK(late.at("p99_ms").get<double>() > 1.0);
  CHECK(late.at("max_ms") == 50.0);
  CHECK(e.at("provider").is_null());
}

TEST_CASE("run live events: the provider's view beside the fleet's, or why it is not there") {
  const Recording rec;
  const auto progress = progress_at(1, 0, 0);
  SUBCASE("read: its bins, its totals, its clock") {
    ProviderStats stats;
    stats.bin_ns = kNsPerSec;
    stats.clock_ns = 3 * kNsPerSec;
    stats.requests = 7;
    stats.by_outcome = BinnedCounts(kNsPerSec, kOutcomeCount);
    stats.by_outcome.add(100, static_cast<std::size_t>(Outcome::kOk), 2);
    stats.by_outcome.add(kNsPerSec, static_cast<std::size_t>(Outcome::kRateLimited), 5);
    stats.by_send = BinnedCounts(kNsPerSec, kSendLabels);
    stats.by_send.add(100, 0, 2);
    stats.by_send.add(kNsPerSec, 1, 5);
    const std::optional provider = Parsed<ProviderStats>::ok(stats);
    const auto e = run_live_event({rec, progress, 1, provider}, 1, std::nullopt, {});
    const auto& p = e.at("provider");
    CHECK(p.at("requests") == 7);
    CHECK(p.at("admitted") == 2);
    CHECK(p.at("refused") == 5);
    CHECK(p.at("clock_ns") == 3 * kNsPerSec);
    CHECK(p.at("bin_ms") == 1000);
    CHECK(p.at("arrivals_by_outcome").at("counts").size() == 2);
    CHECK(p.at("arrivals_by_send").at("counts")[1][1] == 5);
    CHECK_FALSE(p.contains("error"));
    // Its charts beside the fleet's, of its arrivals.
    const auto chart = e.at("panels").at("provider-arrivals-chart").get<std::string>();
    CHECK(chart.find("<g class=\"bars\"") != std::string::npos);
    CHECK(chart.find("arrivals/s at the provider") != std::string::npos);
    CHECK(e.at("panels").contains("provider-waves-chart"));
    CHECK(e.at("panels").at("arrivals-chart").get<std::string>().find("client sends/s") !=
          std::string::npos);
  }
  SUBCASE("unreadable: why") {
    const std::optional provider = Parsed<ProviderStats>::fail("GET /admin/stats: answered 401");
    const auto e = run_live_event({rec, progress, 1, provider}, 1, std::nullopt, {});
    CHECK(e.at("provider") == nlohmann::json{{"error", "GET /admin/stats: answered 401"}});
    CHECK_FALSE(e.at("panels").contains("provider-arrivals-chart"));
  }
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
  // The page's charts draw the provider's arrivals: every one there is the fleet's.
  CHECK(e.at("panels").at("arrivals-chart").get<std::string>().find("arrivals/s at the provider") !=
        std::string::npos);
  CHECK(e.at("fleet") == nlohmann::json{{"delivered", 5},
                                        {"dead_lettered", 1},
                                        {"processes_running", 4},
                                        {"processes_ended", 6}});
}

namespace {

// Whether a chart's time axis is labelled at `second`: it reaches that far.
bool axis_reaches(const nlohmann::json& panels, const char* chart, int second) {
  return panels.at(chart).get<std::string>().find(
             "text-anchor=\"middle\">" + std::to_string(second) + "</text>") != std::string::npos;
}

}  // namespace

TEST_CASE("run and exec live events: the charts' time axis runs to now, past the last send") {
  // The last send at 2.2 s; 13.9 s since the start.
  const auto rec = recording_of({{0.2, 1, Outcome::kOk}, {2.2, 2, Outcome::kRateLimited}});
  ProviderStats stats;
  stats.bin_ns = kNsPerSec;
  stats.clock_ns = 13'900'000'000;
  stats.by_outcome = BinnedCounts(kNsPerSec, kOutcomeCount);
  stats.by_outcome.add(100, static_cast<std::size_t>(Outcome::kOk), 2);
  stats.by_send = BinnedCounts(kNsPerSec, kSendLabels);
  stats.by_send.add(100, 0, 2);
  const std::optional provider = Parsed<ProviderStats>::ok(stats);
  const auto run = run_live_event({rec, progress_at(13.9, 2, 1), 1, provider}, 1, std::nullopt, {});
  for (const char* chart :
       {"arrivals-chart", "waves-chart", "provider-arrivals-chart", "provider-waves-chart"}) {
    CAPTURE(chart);
    CHECK(axis_reaches(run.at("panels"), chart, 12));
  }
  // Nothing sent in the last whole second: the rate now is 0, not the last one seen.
  CHECK(run.at("pace").at("now_per_s") == 0.0);
  CHECK(run.at("pace").at("now_to_s") == 13.0);
  CHECK(run.at("pace").at("peak_per_s") == 1.0);
  const ExecProgress progress{.elapsed_ns = 13'900'000'000, .released = true};
  const auto exec = exec_live_event(stats, progress, 1, std::nullopt, {});
  CHECK(axis_reaches(exec.at("panels"), "arrivals-chart", 12));
  CHECK(axis_reaches(exec.at("panels"), "waves-chart", 12));
}
