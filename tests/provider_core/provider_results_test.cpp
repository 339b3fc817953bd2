#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "duration.hpp"
#include "gate.hpp"
#include "recording/provider_results.hpp"

using namespace stampede;

namespace {

constexpr std::int64_t kMs = kNsPerMs;
constexpr std::int64_t kTolerance = 100 * kMs;  // the default --hint-tolerance

SendAttribution send(std::int64_t n) {
  return {SendStatus::kAttributed, SendRule::kXAttempt, n};
}

Decision answer(int status, std::optional<std::int64_t> retry_after_ns = std::nullopt,
                std::int64_t service_ns = 0) {
  Decision d;
  d.status = status;
  d.retry_after_ns = retry_after_ns;
  d.service_ns = service_ns;
  return d;
}

const Decision kOk = answer(200);
const Decision kLimited = answer(429, 300 * kMs);  // sent as Retry-After: 1

BinnedCounts retries_at(const std::vector<std::int64_t>& times_ms) {
  BinnedCounts bins(kLockstepBinNs, 1);
  for (const auto t : times_ms) bins.add(t * kMs, 0);
  return bins;
}

}  // namespace

TEST_CASE("provider results: the Retry-After as sent is the header's whole seconds") {
  struct Row {
    Decision d;
    std::optional<std::int64_t> sent_ns;
  };
  Decision reset = answer(503, 2 * kNsPerSec);
  reset.reset_connection = true;
  const std::vector<Row> rows{
      {answer(429, 1300 * kMs), 2 * kNsPerSec},  // rounded up
      {answer(429, 0), kNsPerSec},               // at least 1
      {answer(429, 3 * kNsPerSec), 3 * kNsPerSec},
      {answer(503), std::nullopt},  // none sent
      {reset, std::nullopt},        // no answer at all
  };
  for (const auto& row : rows) CHECK(retry_after_sent_ns(row.d, false) == row.sent_ns);
  // With retry-after-ms the client reads the milliseconds, rounded up, at least 1.
  CHECK(retry_after_sent_ns(answer(429, 1300 * kMs + 1), true) == 1301 * kMs);
  CHECK(retry_after_sent_ns(answer(429, 0), true) == kMs);
  CHECK_FALSE(retry_after_sent_ns(answer(503), true));
}

TEST_CASE("provider results: lockstep is the share of retries in the busiest tenth of bins") {
  struct Row {
    const char* what;
    std::vector<std::int64_t> retries_ms;
    std::int64_t first_rejection_ms;  // -1: none
    std::size_t bins;
    std::size_t busiest;
    double share;
  };
  std::vector<std::int64_t> even20, even15, herd, half;
  for (std::int64_t b = 0; b < 20; ++b) even20.push_back(b * 100 + 50);
  for (std::int64_t b = 0; b < 15; ++b) even15.push_back(b * 100 + 50);
  for (int i = 0; i < 50; ++i) herd.push_back(1000 + i);                 // one bin
  for (int i = 0; i < 50; ++i) herd.push_back(3000 + i);                 // and another, 20 bins on
  for (int i = 0; i < 9; ++i) half.push_back(1050);                      // 9 in the first bin
  for (std::int64_t b = 1; b < 10; ++b) half.push_back(1000 + b * 100);  // 1 in each other
  const std::vector<Row> rows{
      {"no rejection", {100, 200}, -1, 0, 0, 0.0},
      {"no retry", {}, 0, 0, 0, 0.0},
      {"one bin", {120, 130, 199}, 100, 1, 1, 1.0},
      {"even over 20 bins", even20, 0, 20, 2, 0.1},
      {"even over 15 bins: ceil", even15, 0, 15, 2, 2.0 / 15.0},
      {"two herds 2 s apart", herd, 1000, 21, 3, 1.0},
      {"half in one bin of 10", half, 1000, 10, 1, 0.5},
      // Retries before the first rejection's bin are not in the span.
      {"before the first rejection", {50, 60, 70, 1050, 1150}, 1000, 2, 1, 0.5},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    const auto l = lockstep_of(retries_at(row.retries_ms),
                               row.first_rejection_ms < 0 ? -1 : row.first_rejection_ms * kMs);
    CHECK(l.bins == row.bins);
    CHECK(l.busiest_bins == row.busiest);
    CHECK(l.share == doctest::Approx(row.share));
  }
}

TEST_CASE("provider results: each retry's wait against the Retry-After its item was given") {
  struct Row {
    const char* what;
    Decision rejection;
    std::int64_t retry_ms;  // the rejection arrives at 0
    std::int64_t early, at_hint, late, without_hint;
    std::int64_t tolerance_ms = 100;  // --hint-tolerance
  };
  const std::vector<Row> rows{
      {"exactly the hint", kLimited, 1000, 0, 1, 0, 0},
      {"the hint plus a round trip", kLimited, 1060, 0, 1, 0, 0},
      {"100 ms early is still at it", kLimited, 900, 0, 1, 0, 0},
      {"early", kLimited, 500, 1, 0, 0, 0},
      {"late", kLimited, 1101, 0, 0, 1, 0},
      // The wait runs from the answer: 200 ms of service time, then 1 s.
      {"from the answer", answer(503, kNsPerSec, 200 * kMs), 1200, 0, 1, 0, 0},
      {"no hint sent", answer(503), 1000, 0, 0, 0, 1},
      // --hint-tolerance: a fleet far away, or slow to wake, still at its hint.
      {"late by 250 ms, within a 300 ms tolerance", kLimited, 1250, 0, 1, 0, 0, 300},
      {"early by 250 ms, within a 300 ms tolerance", kLimited, 750, 0, 1, 0, 0, 300},
      {"late by 301 ms, past a 300 ms tolerance", kLimited, 1301, 0, 0, 1, 0, 300},
      {"early by 20 ms, past a 10 ms tolerance", kLimited, 980, 1, 0, 0, 0, 10},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    RetryRecord r(10, false, row.tolerance_ms * kMs);
    r.record(0, 7, send(1), row.rejection);
    r.record(row.retry_ms * kMs, 7, send(2), kOk);
    const auto& w = r.hint_waits();
    CHECK(w.retries == 1);
    CHECK(w.early == row.early);
    CHECK(w.at_hint == row.at_hint);
    CHECK(w.late == row.late);
    CHECK(w.without_hint == row.without_hint);
    CHECK(w.at_hint_share() == doctest::Approx(static_cast<double>(row.at_hint)));
  }
}

TEST_CASE("provider results: items by their last answer; gave up, delivered, refused") {
  RetryRecord r(10, false, kTolerance);
  // Item 1: 429 then 200 (delivered, 2 sends). Item 2: 429 twice (gave up). Item 3: 400.
  r.record(0, 1, send(1), kLimited);
  r.record(0, 2, send(1), kLimited);
  r.record(0, 3, send(1), answer(400));
  r.record(1000 * kMs, 1, send(2), kOk);
  r.record(1000 * kMs, 2, send(2), kLimited);
  // A retry after a success is not a wait for a hint (one item per client, its next request).
  r.record(1500 * kMs, 1, send(3), kOk);
  const auto items = r.items();
  CHECK(items.items == 3);
  CHECK(items.delivered == 1);
  CHECK(items.gave_up == 1);
  CHECK(items.by_final_outcome[static_cast<std::size_t>(Outcome::kOk)] == 1);
  CHECK(items.by_final_outcome[static_cast<std::size_t>(Outcome::kRateLimited)] == 1);
  CHECK(items.by_final_outcome[static_cast<std::size_t>(Outcome::kClientError)] == 1);
  CHECK(items.drain_ns == 1500 * kMs);
  CHECK(items.sends_per_item.count() == 3);
  CHECK(items.sends_per_item.max() == 3);
  CHECK(items.latency_ns.max() == 1500 * kMs);
  CHECK(r.hint_waits().retries == 2);
  CHECK(r.hint_waits().at_hint == 2);
}

TEST_CASE("provider results: at most max_items items are followed; the rest are counted") {
  RetryRecord r(2, false, kTolerance);
  for (std::uint64_t item = 1; item <= 4; ++item) r.record(0, item, send(1), kLimited);
  r.record(kNsPerSec, 3, send(2), kLimited);  // past the limit: not followed
  r.record(kNsPerSec, 0, send(2), kLimited);  // names no item
  CHECK(r.items().items == 2);
  CHECK(r.max_items() == 2);
  CHECK(r.arrivals() == 6);
  CHECK(r.arrivals_past_limit() == 3);
  CHECK(r.arrivals_without_item() == 1);
  CHECK(r.hint_waits().retries == 0);
  // The lockstep figure bins every numbered retry, followed or not.
  CHECK(r.lockstep().retries == 2);
  r.clear();
  CHECK(r.items().items == 0);
  CHECK(r.arrivals() == 0);
  CHECK(r.lockstep().retries == 0);
}

TEST_CASE("provider results: retries are binned from the first rejection on") {
  RetryRecord r(10, false, kTolerance);
  r.record(0, 1, send(2), kOk);  // a declared retry before any rejection
  r.record(500 * kMs, 1, send(1), kLimited);
  r.record(1500 * kMs, 1, send(2), kOk);
  const auto l = r.lockstep();
  CHECK(l.from_ns == 500 * kMs);
  CHECK(l.retries == 1);
  CHECK(l.bins == 11);
}

TEST_CASE(
    "provider results: the document is a results document, gated on the provider's "
    "figures") {
  ProviderConfig config;
  config.allowance = *parse_rate("10/s");
  ArrivalStats stats(kNsPerSec);
  RetryRecord record(100, false, kTolerance);
  // A herd of 20 items that sleep exactly the hint: rejected at 0, all back at 1 s.
  for (std::uint64_t item = 1; item <= 20; ++item) {
    stats.record(0, "", Outcome::kRateLimited, send(1), DecisionReason::kAllowance);
    record.record(0, item, send(1), kLimited);
  }
  for (std::uint64_t item = 1; item <= 20; ++item) {
    const auto t = kNsPerSec + static_cast<std::int64_t>(item) * kMs;
    const Decision& d = item <= 10 ? kOk : kLimited;
    stats.record(t, "", d.outcome(), send(2));
    record.record(t, item, send(2), d);
  }
  const auto doc = provider_results_json(stats, record, config, 2 * kNsPerSec, 1.0);
  const auto parsed = results_from_json(doc);
  REQUIRE(parsed);
  const Results& r = *parsed;
  CHECK(r.engine == "fakeprovider");
  CHECK(r.provider_side);
  CHECK(r.recording.items == 20);
  CHECK(r.recording.delivered == 10);
  CHECK(r.recording.dead_lettered == 10);
  CHECK(r.recording.requests == 40);
  CHECK(r.summary.hint_share == doctest::Approx(1.0));
  CHECK(r.summary.lockstep == doctest::Approx(1.0));
  CHECK(r.summary.retries == 20);  // the provider's numbering stands in for the clients'
  CHECK(r.summary.provider_requests == 40);
  CHECK(doc.at("provider_results").at("items").at("gave_up") == 10);
  CHECK(doc.at("provider_results").at("hint_waits").at("at_hint") == 20);
  CHECK(doc.at("provider_results").at("lockstep").at("bins") == 11);

  const auto context = metric_context("fakeprovider", config, true, true);
  const auto checks = gate_assertions({}, {"lockstep < 0.5", "hint_share < 0.5"}, true, context);
  REQUIRE(checks);
  for (const auto& v : evaluate_gate(*checks, r, context)) CHECK_FALSE(v.passed);
  // Without the per-item record the figures mean nothing, and a check on them never passes.
  const auto planned =
      gate_assertions({}, {"lockstep < 0.5"}, true, metric_context("fakeprovider", config, true));
  CHECK_FALSE(planned);
}
