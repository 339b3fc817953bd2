#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "results.hpp"
#include "sim/sim_engine.hpp"
#include "support/process.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

Scenario storm(StrategyKind strategy) {
  auto s = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE_MESSAGE(s, s.error());
  Scenario out = *s;
  out.fleet.strategy = strategy;
  return out;
}

}  // namespace

TEST_CASE("results survive a JSON round trip") {
  for (const auto strategy : {StrategyKind::kExponential, StrategyKind::kFullJitter}) {
    Results r = simulate(storm(strategy));
    auto assertions = parse_assertions(r.scenario.expectations);
    REQUIRE(assertions);
    r.verdicts = evaluate_all(*assertions, r.summary);
    const json j = to_json(r);
    const auto back = results_from_json(json::parse(j.dump()));
    REQUIRE_MESSAGE(back, back.error());
    CHECK(to_json(*back).dump() == j.dump());
    CHECK(back->engine == "simulate");
    CHECK(back->provider_side);
    CHECK(back->recording.requests == r.recording.requests);
    CHECK(back->recording.drain_ns == r.recording.drain_ns);
    CHECK(back->recording.provider_by_outcome.total() == r.recording.requests);
    CHECK(back->summary.requests == r.summary.requests);
    REQUIRE(back->verdicts.size() == r.verdicts.size());
    for (std::size_t i = 0; i < r.verdicts.size(); ++i) {
      CHECK(back->verdicts[i].text == r.verdicts[i].text);
      CHECK(back->verdicts[i].passed == r.verdicts[i].passed);
    }
  }
}

TEST_CASE("the results document names its format and carries the summary keys") {
  const json j = to_json(simulate(storm(StrategyKind::kExponential)));
  CHECK(j.at("format") == kResultsFormat);
  CHECK(j.at("engine") == "simulate");
  // The open model's drops only in its documents: a storm's reads as it did before them; the
  // divergence from a simulation only in a live run's.
  for (const auto& m : kMetrics) {
    CAPTURE(m.name);
    CHECK(j.at("summary").contains(m.name) ==
          !(m.name.starts_with("dropped") || m.name == "sim_divergence"));
  }
  CHECK_FALSE(j.at("counts").contains("dropped"));
  CHECK(j.at("histograms").contains("provider_arrivals_by_outcome"));
  CHECK(j.at("histograms").contains("client_sends_by_outcome"));
}

TEST_CASE("documents that are not results are refused") {
  const json good = to_json(simulate(storm(StrategyKind::kExponential)));
  CHECK_FALSE(results_from_json(json::array()));
  json wrong_format = good;
  wrong_format["format"] = kResultsFormat + 1;
  CHECK_FALSE(results_from_json(wrong_format));
  for (const char* key : {"engine", "scenario", "summary", "counts", "histograms"}) {
    CAPTURE(key);
    json missing = good;
    missing.erase(key);
    const auto r = results_from_json(missing);
    REQUIRE_FALSE(r);
    CHECK_FALSE(r.error().empty());
  }
  json bad_scenario = good;
  bad_scenario["scenario"]["fleet"]["strateg"] = "x";
  const auto r = results_from_json(bad_scenario);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("fleet.strateg") != std::string::npos);
}

TEST_CASE("a results document from before bad_response reads, its outcome columns by name") {
  const Results now = simulate(storm(StrategyKind::kExponential));
  json old = to_json(now);
  // As the version before wrote it: eight outcome labels, no bad_response column.
  for (const char* name : {"provider_arrivals_by_outcome", "client_sends_by_outcome"}) {
    auto& h = old["histograms"][name];
    REQUIRE(h["labels"].back() == "bad_response");
    h["labels"].erase(h["labels"].size() - 1);
    for (auto& row : h["counts"]) row.erase(row.size() - 1);
  }
  old["summary"].erase("status_ratio_bad_response");
  const auto back = results_from_json(old);
  REQUIRE_MESSAGE(back, back.error());
  const auto& rec = back->recording;
  CHECK(rec.client_by_outcome.labels() == kOutcomeCount);
  CHECK(rec.provider_by_outcome.total() == now.recording.provider_by_outcome.total());
  CHECK(rec.client_by_outcome.at(31, 0) == now.recording.client_by_outcome.at(31, 0));
  CHECK(back->summary.status_ratio_bad_response == 0);
  Recording merged = rec;
  merged.merge(now.recording);  // the shapes agree: an old shard merges with a new one
  CHECK(merged.requests == 2 * now.recording.requests);

  json shuffled = to_json(now);
  auto& h = shuffled["histograms"]["client_sends_by_outcome"];
  std::swap(h["labels"][0], h["labels"][1]);
  for (auto& row : h["counts"]) std::swap(row[0], row[1]);
  const auto reordered = results_from_json(shuffled);
  REQUIRE(reordered);
  CHECK(to_json(*reordered).dump() == to_json(now).dump());

  h["labels"][0] = "418";
  const auto unknown = results_from_json(shuffled);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().find("histogram label '418' unknown") != std::string::npos);
}

TEST_CASE("recordings merge by adding") {
  Recording a;
  Recording b;
  a.record_send(0, 1, Outcome::kOk);
  a.statuses[200] = 1;
  a.record_arrival(0, 1, Outcome::kOk);
  a.drain_ns = 5;
  b.record_send(3 * kNsPerSec, 40, Outcome::kRateLimited);
  b.statuses[429] = 1;
  b.statuses[200] = 2;
  b.record_arrival(3 * kNsPerSec, 40, Outcome::kRateLimited);
  b.drain_ns = 2;
  a.merge(b);
  CHECK(a.requests == 2);
  CHECK(a.drain_ns == 5);
  CHECK(a.provider_by_outcome.at(3, static_cast<std::size_t>(Outcome::kRateLimited)) == 1);
  // A send number past the last label counts in the last label.
  CHECK(a.provider_by_send.at(3, kSendLabels - 1) == 1);
  CHECK(a.provider_by_send.at(0, 0) == 1);
  // The clients' sends: first or retry.
  CHECK(a.client_by_send.at(0, 0) == 1);
  CHECK(a.client_by_send.at(3, 1) == 1);
  CHECK(a.statuses == std::map<int, std::int64_t>{{200, 3}, {429, 1}});
}

TEST_CASE("a fleet's run context, response times and dead-letter reasons survive a round trip") {
  Results r = simulate(storm(StrategyKind::kExponential));
  r.engine = "run";
  r.context = RunContext{"http://127.0.0.1:9/v1", "2025-01-31T12:00:00.250Z", 12.5, 0.25,
                         "--max-duration 10s"};
  r.recording.record_response(1, 4'000'000);
  r.recording.record_response(40, 9'000'000);
  r.recording.dead_letter_reasons["deadline_exceeded"] = 3;
  const json j = to_json(r);
  CHECK(j["context"]["stopped_by"] == "--max-duration 10s");
  CHECK(j["distributions"]["response_ns_by_send"].size() == 2);
  CHECK(j["distributions"]["response_ns_by_send"].contains("16+"));
  const auto back = results_from_json(json::parse(j.dump()));
  REQUIRE_MESSAGE(back, back.error());
  CHECK(to_json(*back) == j);
  REQUIRE(back->context);
  CHECK(back->context->started_utc == "2025-01-31T12:00:00.250Z");
  CHECK(back->recording.response_ns_by_send[15].count() == 1);
  CHECK(back->recording.client_by_send_number.total() == back->recording.requests);

  auto bad = j;
  bad["distributions"]["response_ns_by_send"]["17"] = bad["distributions"]["item_latency_ns"];
  CHECK(results_from_json(bad).error().find("'17' is not a send label") != std::string::npos);
  // A simulation has no wall clock, and an older document none of these: both read as empty.
  Results sim = simulate(storm(StrategyKind::kExponential));
  auto old = to_json(sim);
  CHECK(!old.contains("context"));
  old["histograms"].erase("client_sends_by_send_number");
  const auto read = results_from_json(old);
  REQUIRE_MESSAGE(read, read.error());
  CHECK(read->recording.client_by_send_number.total() == 0);
}

TEST_CASE("format_utc writes RFC 3339 UTC to the millisecond") {
  CHECK(format_utc(0) == "1970-01-01T00:00:00.000Z");
  CHECK(format_utc(1'738'324'800'250'000'000) == "2025-01-31T12:00:00.250Z");
  CHECK(format_utc(951'782'400'000'000'000) == "2000-02-29T00:00:00.000Z");
  CHECK(format_utc(-1'000'000) == "1969-12-31T23:59:59.999Z");
}

TEST_CASE("a streamed run's streams section: only when it streamed, round-tripped and merged") {
  Results r = simulate(storm(StrategyKind::kExponential));
  r.engine = "run";
  // A run that streamed nothing has no section: its document reads as before.
  CHECK_FALSE(to_json(r).contains("streams"));
  StreamRecording& s = r.recording.streams;
  s.completed = 3;
  s.broken = 1;
  s.tokens = 25;
  for (const std::int64_t ms : {100, 120, 400}) s.first_token_ns.record(ms * kNsPerMs);
  for (const std::int64_t ms : {900, 950, 2000}) s.duration_ns.record(ms * kNsPerMs);
  const json j = to_json(r);
  REQUIRE(j.contains("streams"));
  CHECK(j["streams"]["completed"] == 3);
  CHECK(j["streams"]["broken"] == 1);
  CHECK(j["streams"]["tokens_received"] == 25);
  CHECK(j["streams"]["first_token_p50_ms"].get<double>() ==
        doctest::Approx(static_cast<double>(s.first_token_ns.quantile(0.5)) / kNsPerMs));
  CHECK(j["streams"]["duration_p99_ms"].get<double>() ==
        doctest::Approx(static_cast<double>(s.duration_ns.quantile(0.99)) / kNsPerMs));
  const auto back = results_from_json(json::parse(j.dump()));
  REQUIRE_MESSAGE(back, back.error());
  CHECK(to_json(*back) == j);
  // Two shards' streams add up, their histograms too.
  Recording merged = back->recording;
  merged.merge(back->recording);
  CHECK(merged.streams.completed == 6);
  CHECK(merged.streams.broken == 2);
  CHECK(merged.streams.tokens == 50);
  CHECK(merged.streams.first_token_ns.count() == 6);
  CHECK(merged.streams.duration_ns.count() == 6);
  auto bad = j;
  bad["streams"].erase("tokens_received");
  CHECK_FALSE(results_from_json(bad));
  // A document from before the open-streams series reads with none.
  auto old = j;
  old["streams"].erase("open_transitions");
  const auto read_old = results_from_json(old);
  REQUIRE_MESSAGE(read_old, read_old.error());
  CHECK(read_old->recording.streams.open_transitions.total() == 0);
}

TEST_CASE("streams open over time: the running sum of opens and closes at each second's end") {
  struct Row {
    std::vector<std::pair<double, double>> streams;  // open from, to (scenario s)
    std::vector<std::int64_t> open;                  // at the end of each second
    std::int64_t peak;
    double peak_second;
  };
  const std::vector<Row> rows{
      {{}, {}, 0, 0},
      // Open across a second's end: counted there; opened and closed within one: not.
      {{{0.5, 2.5}}, {1, 1, 0}, 1, 0},
      {{{0.1, 0.9}}, {0}, 0, 0},
      {{{0.2, 3.1}, {1.5, 2.5}, {1.7, 4.0}, {3.2, 3.3}}, {1, 3, 2, 1, 0}, 3, 1},
      // An end read before its start (clocks apart) closes in the start's second.
      {{{2.5, 2.4}, {0.0, 1.0}}, {1, 0, 0}, 1, 0},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    const Row& row = rows[i];
    StreamRecording s;
    for (const auto& [from, to] : row.streams)
      s.record_open(static_cast<std::int64_t>(from * kNsPerSec),
                    static_cast<std::int64_t>(to * kNsPerSec));
    CHECK(running_levels(s.open_transitions) == row.open);
    const auto peak = open_streams_peak(s.open_transitions);
    CHECK(peak.open == row.peak);
    CHECK(peak.second == row.peak_second);
  }
  // Two shards add up second by second, and so does the section as written and read back.
  StreamRecording a, b;
  a.completed = b.completed = 1;
  a.record_open(0, 3 * kNsPerSec);
  b.record_open(kNsPerSec / 2, 2 * kNsPerSec);
  a.merge(b);
  CHECK(running_levels(a.open_transitions) == std::vector<std::int64_t>{2, 2, 1, 0});
  const json j = to_json(a);
  CHECK(j["open_peak"] == 2);
  CHECK(j["open_peak_second"] == 0.0);
  CHECK(j["open_transitions"]["labels"] == json::array({"opened", "closed"}));
  CHECK(running_levels(stream_recording_from_json(j).open_transitions) ==
        running_levels(a.open_transitions));
  auto wide = j;
  wide["open_transitions"]["bin_ms"] = 2000;
  CHECK_THROWS_WITH(stream_recording_from_json(wide),
                    "streams.open_transitions: bin_ms must be 1000");
  // Streams without the series (documents older than it, merged): no peak, not a peak of 0.
  StreamRecording unseries;
  unseries.completed = 3;
  const json none = to_json(unseries);
  CHECK_FALSE(none.contains("open_peak"));
  CHECK_FALSE(none.contains("open_peak_second"));
}
