// Inputs the fuzzers in fuzz/ found to crash (or to hit undefined behaviour), each replayed
// against the code it broke. The name says which target found it; `make fuzz` runs them all.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/merge_command.hpp"
#include "duration.hpp"
#include "html_report.hpp"
#include "http/retry_after_header.hpp"
#include "model/limiter.hpp"
#include "model/provider_policy.hpp"
#include "report_format.hpp"
#include "results.hpp"
#include "scenario.hpp"
#include "support/process.hpp"
#include "terminal_summary.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kMaxDelayNs = std::numeric_limits<std::int64_t>::max() / kSec * kSec;

json golden_results() {
  std::ifstream in(support::source_path("tests/report/golden/storm_full_jitter.results.json"));
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

}  // namespace

TEST_CASE("fuzz_duration: a duration within a microsecond of the largest spells back to itself") {
  // Spelled "9223372036854775.708us", which the unit's overflow bound (one unit short of the
  // largest) refused as too large.
  for (const std::int64_t ns :
       {std::int64_t{9223372036854775708}, std::numeric_limits<std::int64_t>::max(),
        std::numeric_limits<std::int64_t>::max() - 999}) {
    CAPTURE(ns);
    const auto again = parse_duration_ns(format_duration(ns));
    REQUIRE(again);
    CHECK(*again == ns);
  }
  // One past the largest is still too large, in any unit.
  CHECK_FALSE(parse_duration_ns("9223372036854775808ns"));
  CHECK_FALSE(parse_duration_ns("9223372036854775.808us"));
  CHECK_FALSE(parse_duration_ns("9223372036.854775808s"));
}

TEST_CASE("fuzz_retry_after: a date in year 9999 saturates instead of overflowing") {
  // 253402300799 s since the epoch: times 10^9 is past what an int64 holds.
  const std::int64_t now = 1'700'000'000 * kSec;
  const auto far = parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", now);
  REQUIRE(far);
  CHECK(far->from_date);
  CHECK(far->delay_ns == kMaxDelayNs);
  // The same bound as a huge delta, so both forms mean "not for a very long time" alike.
  CHECK(parse_retry_after("99999999999999999999999", now)->delay_ns == kMaxDelayNs);
  // Year 0 is long past: now, at any now, even the earliest an int64 can say.
  const auto ancient =
      parse_retry_after("Sat, 01 Jan 0000 00:00:00 GMT", std::numeric_limits<std::int64_t>::min());
  REQUIRE(ancient);
  CHECK(ancient->delay_ns == 0);
  const auto late =
      parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", std::numeric_limits<std::int64_t>::max());
  REQUIRE(late);
  CHECK(late->delay_ns == kMaxDelayNs);
}

TEST_CASE("fuzz_scenario: a steady workload of rate x duration beyond any count is refused") {
  // The input as found: rate x duration is 8.5e28 items, which item_count() converted to an
  // int64 (undefined behaviour) before validate() could look at it.
  const auto s = scenario_from_json(json::parse(
      R"({"fleet":{"workload":"steady","rate":"9223372036854775807/s","duration":"9223372031s"}})"));
  REQUIRE(s);
  CHECK(s->fleet.item_count() > kMaxItems);
  const auto errors = validate(*s);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("fleet.items: at most") == 0);
  // The largest count a run may make is still accepted.
  auto ok = *s;
  ok.fleet.rate = Rate{kMaxItems, kSec};
  ok.fleet.duration_ns = kSec;
  CHECK(validate(ok).empty());
  CHECK(ok.fleet.item_count() == kMaxItems);
}

TEST_CASE("fuzz_results: histogram counts that overflow when added are a malformed file") {
  auto doc = golden_results();
  doc["distributions"]["item_latency_ns"]["buckets"] =
      json::array({json::array({std::numeric_limits<std::int64_t>::max(),
                                std::numeric_limits<std::int64_t>::max()}),
                   json::array({std::numeric_limits<std::int64_t>::max(), 5})});
  const auto r = results_from_json(doc);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("malformed results document") == 0);
  CHECK(r.error().find("overflow") != std::string::npos);
}

TEST_CASE("fuzz_provider_request: a sliding window of a huge allowance allocates nothing upfront") {
  // The provider allocated the whole window's log per tenant at the first request: an
  // allowance of 2^63-1 asked for 2^66 bytes and aborted, and any large allowance cost that
  // much again for each tenant a client made up.
  SlidingWindowLimiter huge(Rate{std::numeric_limits<std::int64_t>::max(), kSec});
  for (std::int64_t i = 0; i < 3; ++i) CHECK(huge.try_acquire(i).admitted);

  ProviderConfig config;
  config.allowance = Rate{std::numeric_limits<std::int64_t>::max(), 3600 * kSec};
  config.limiter = LimiterKind::kSlidingWindow;
  ProviderPolicy policy(config);
  for (int tenant = 0; tenant < 1000; ++tenant) {
    CHECK(policy.admit(tenant, "tenant-" + std::to_string(tenant)).status == 200);
  }
}

TEST_CASE("the sliding window still admits its count per window, and no more") {
  SlidingWindowLimiter limiter(Rate{3, kSec});
  CHECK(limiter.try_acquire(0).admitted);
  CHECK(limiter.try_acquire(100).admitted);
  const auto third = limiter.try_acquire(200);
  CHECK(third.admitted);
  CHECK(third.remaining == 0);
  const auto fourth = limiter.try_acquire(300);
  CHECK_FALSE(fourth.admitted);
  CHECK(fourth.retry_after_ns == kSec - 300);  // until the admission at 0 leaves the window
  CHECK(fourth.reset_ns == kSec - 100);        // until the newest, at 200, leaves it
  CHECK(limiter.try_acquire(kSec).admitted);   // the one at 0 has left
  CHECK_FALSE(limiter.try_acquire(kSec).admitted);
}

TEST_CASE("fuzz_results: summary values beyond any integer render in exponent form") {
  // A results file's peak_ratio of 1e308 went through llround (unspecified beyond long long,
  // LLONG_MIN here) and then negated LLONG_MIN.
  CHECK(format_count(1e308) == "1e+308");
  CHECK(format_count(-1e19) == "-1e+19");
  CHECK(format_seconds(-1e308) == "-1e+308 s");
  CHECK(format_count(1234567) == "1,234,567");  // ordinary values as before
  auto doc = golden_results();
  doc["summary"]["peak_ratio"] = 1e308;
  doc["summary"]["drain_s"] = -1e308;
  const auto r = results_from_json(doc);
  REQUIRE(r);
  const auto html = render_report({*r}, {"huge"});
  CHECK(html.find("1e+308") != std::string::npos);
}

TEST_CASE("fuzz_provider_request: the default burst of a huge allowance saturates") {
  // floor(per_second()) of 2^63-1/s is 2^63 as a double, which no int64 holds.
  const Rate huge{std::numeric_limits<std::int64_t>::max(), kSec};
  CHECK(default_burst(huge) == std::numeric_limits<std::int64_t>::max());
  CHECK(default_burst(Rate{100, kSec}) == 100);
  auto bucket = make_limiter(LimiterKind::kTokenBucket, huge, std::nullopt);
  CHECK(bucket->try_acquire(0).admitted);
}

TEST_CASE("fuzz_provider_request: tokens served without a spend cap are not summed past int64") {
  // Found once the target sent arrivals through the send-numbering headers: a tenant's spent
  // tokens were added up (signed overflow) even with no spend cap to hold them against.
  ProviderConfig config;
  config.token_allowance = Rate{std::numeric_limits<std::int64_t>::max(), kSec};
  ProviderPolicy policy(config);
  const DeclaredTokens big{5'823'383'913'465'172'176, false};
  for (std::int64_t i = 0; i < 3; ++i) CHECK(policy.admit(i * kSec, "t", big).status == 200);
}

TEST_CASE("fuzz_results: a histogram bin too long for nanoseconds is a malformed file") {
  auto doc = golden_results();
  doc["histograms"]["provider_arrivals_by_outcome"]["bin_ms"] =
      std::numeric_limits<std::int64_t>::max();
  const auto r = results_from_json(doc);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("bin_ms") != std::string::npos);
}

namespace {

// The golden results as shard index of count: documents `loadgen merge` would take.
json golden_shard(std::int64_t index, std::int64_t count) {
  auto doc = golden_results();
  doc["shard"] = {{"index", index}, {"count", count}, {"start_late_s", 0.0}};
  return doc;
}

}  // namespace

TEST_CASE("fuzz_merge: shards whose histograms have other bins are refused, not a crash") {
  // BinnedCounts::merge threw past merge_results, and `loadgen merge` aborted.
  auto b = golden_shard(1, 2);
  b["histograms"]["backoff_transitions"]["bin_ms"] = 500;
  const auto merged = merge_results({{"a.json", golden_shard(0, 2)}, {"b.json", b}}, false);
  REQUIRE_FALSE(merged);
  CHECK(merged.error() ==
        "a.json and b.json have histograms of different bins or labels: merge the shards of one "
        "run");
  CHECK(merge_results({{"a.json", golden_shard(0, 2)}, {"b.json", golden_shard(1, 2)}}, false));
}

TEST_CASE("fuzz_merge: a live section that is not what a run writes is a malformed document") {
  // merge_live read the section with at() and get(): its exceptions ended the command.
  auto a = golden_shard(0, 2);
  auto b = golden_shard(1, 2);
  a["engine"] = b["engine"] = "run";
  const auto missing = merge_results({{"a.json", a}, {"b.json", b}}, false);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().find("malformed results document: ") == 0);
  a["live"] = b["live"] = {{"loops", "two"}};
  const auto wrong_type = merge_results({{"a.json", a}, {"b.json", b}}, false);
  REQUIRE_FALSE(wrong_type);
  CHECK(wrong_type.error().find("malformed results document: ") == 0);
}

TEST_CASE("fuzz_merge: counts that overflow when added saturate") {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  auto a = golden_shard(0, 2);
  auto b = golden_shard(1, 2);
  a["counts"]["requests"] = b["counts"]["requests"] = kMax;
  a["distributions"]["sends_per_item"]["count"] = b["distributions"]["sends_per_item"]["count"] =
      kMax;
  const auto merged = merge_results({{"a.json", a}, {"b.json", b}}, false);
  REQUIRE(merged);
  CHECK(merged->at("counts").at("requests") == kMax);
  CHECK(merged->at("distributions").at("sends_per_item").at("count") == kMax);
  // The summary `loadgen merge` prints: a count past what a long long holds is not cast to one.
  CHECK_FALSE(format_terminal_summary(*results_from_json(*merged)).empty());
}

TEST_CASE("fuzz_merge: a shard count beyond any fleet is a malformed document") {
  // A merge lists the shards it misses: 2^62 of them was a list it could never finish.
  const auto huge = results_from_json(golden_shard(0, std::int64_t{1} << 62));
  REQUIRE_FALSE(huge);
  CHECK(huge.error() ==
        "shard: index 0 of 4611686018427387904: needs 0 <= index < count <= 100000");
  CHECK_FALSE(results_from_json(golden_shard(2, 2)));
  CHECK_FALSE(results_from_json(golden_shard(-1, 2)));
  CHECK(results_from_json(golden_shard(0, kMaxShards)));
  const auto partial = merge_results({{"a.json", golden_shard(3, 5)}}, true);
  REQUIRE(partial);
  CHECK(partial->at("merged").at("missing") == json::array({0, 1, 2, 4}));
}

TEST_CASE("fuzz_merge: a count that is a float past int64 is a malformed document") {
  // get<int64_t> cast 1.07e20 to an int64 (undefined); an unsigned past int64 wrapped.
  auto doc = golden_results();
  doc["histograms"]["backoff_transitions"]["counts"][0][0] = 1.07778e20;
  const auto floated = results_from_json(doc);
  REQUIRE_FALSE(floated);
  CHECK(floated.error() == "malformed results document: not a whole number: 1.07778e+20");
  doc = golden_results();
  doc["counts"]["requests"] = std::numeric_limits<std::uint64_t>::max();
  const auto unsigned_past = results_from_json(doc);
  REQUIRE_FALSE(unsigned_past);
  CHECK(unsigned_past.error() == "malformed results document: a number past int64");
}
