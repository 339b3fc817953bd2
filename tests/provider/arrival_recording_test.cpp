#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "duration.hpp"
#include "recording/arrival_log.hpp"
#include "recording/arrival_stats.hpp"
#include "results.hpp"

using namespace stampede;

namespace {

SendAttribution nth(std::int64_t send, SendRule rule = SendRule::kXAttempt) {
  return {SendStatus::kAttributed, rule, send};
}

}  // namespace

TEST_CASE("CSV fields are quoted only when they must be") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("") == "");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("line\nbreak") == "\"line\nbreak\"");
}

TEST_CASE("the arrival logs of several threads merge in the order of decisions") {
  ArrivalLog a;
  ArrivalLog b;
  a.record(0, 5, 5, "k1", 200, nth(1), "c1");
  b.record(1, 7, 7, "k,2", 429, nth(3, SendRule::kStainlessRetryCount), "");
  a.record(2, 7, 8, "k1", 0, {SendStatus::kMalformed, SendRule::kAmzSdkRequest}, "c\"3");
  b.record(3, 6, 8, "k1", 429, nth(2, SendRule::kClientHeader), "c4");
  b.record(4, 9, 9, "k1", 429, {}, "c5");
  CHECK(a.size() == 2);
  // The send_rule and decided_t_ns columns last, so readers of the first five read on; no
  // number, no attempt. Rows in the order of decisions: a stamp (t_ns) may go back, as c4's.
  CHECK(ArrivalLog::to_csv({&a, &b}) ==
        "t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,stream\n"
        "5,k1,200,1,c1,x-attempt,5,,\n"
        "7,\"k,2\",429,3,,x-stainless-retry-count,7,,\n"
        "7,k1,0,,\"c\"\"3\",malformed:amz-sdk-request,8,,\n"
        "6,k1,429,2,c4,client-header,8,,\n"
        "9,k1,429,,c5,none,9,,\n");
  a.clear();
  CHECK(ArrivalLog::to_csv({&a}) ==
        "t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,stream\n");
}

TEST_CASE(
    "the arrival log says what the upstream answered a forwarded request, and broken streams") {
  ArrivalLog log;
  const std::size_t ok = log.record(0, 1, 1, "k", 200, nth(1), "");
  const std::size_t theirs = log.record(1, 2, 2, "k", 200, nth(2), "");
  const std::size_t failed = log.record(2, 3, 3, "k", 200, nth(3), "");
  const std::size_t slow = log.record(3, 4, 4, "k", 200, nth(4), "");
  log.record(4, 5, 5, "k", 429, nth(5), "");  // ours: never forwarded
  log.set_upstream(ok, 200);
  log.set_upstream(theirs, 429);
  log.set_upstream(failed, kUpstreamFailed);
  log.set_upstream(slow, kUpstreamTimedOut);
  log.set_upstream(99, 200);  // a row gone with a reset: ignored
  const std::size_t broken = log.record(5, 6, 6, "k", 200, nth(6), "");
  log.set_upstream(broken, kStreamBroken);  // not the upstream's: its own column
  CHECK(ArrivalLog::to_csv({&log}) ==
        "t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,stream\n"
        "1,k,200,1,,x-attempt,1,200,\n"
        "2,k,200,2,,x-attempt,2,429,\n"
        "3,k,200,3,,x-attempt,3,error,\n"
        "4,k,200,4,,x-attempt,4,timeout,\n"
        "5,k,429,5,,x-attempt,5,,\n"
        "6,k,200,6,,x-attempt,6,,broken\n");
}

TEST_CASE("stats of several threads add up") {
  ArrivalStats a(kNsPerSec);
  ArrivalStats b(kNsPerSec);
  a.record(0, "x", Outcome::kOk, nth(1));
  b.record(3 * kNsPerSec, "x", Outcome::kRateLimited, nth(2, SendRule::kItemHeader));
  b.record(3 * kNsPerSec, "y", Outcome::kOk, {SendStatus::kMalformed, SendRule::kXAttempt});
  a.merge(b);
  CHECK(a.totals().requests == 3);
  CHECK(a.totals().by_outcome[0] == 2);
  CHECK(a.tenants().at("x").requests == 2);
  CHECK(a.tenants().at("y").by_outcome[0] == 1);
  CHECK(a.by_outcome().bins() == 4);
  CHECK(a.by_outcome().at(3, 1) == 1);
  CHECK(a.by_send().at(3, 1) == 1);
  CHECK(a.by_send().at(3, 0) == 0);  // the malformed one: by outcome, not by send
  CHECK(a.by_outcome().at(3, 0) == 1);
  CHECK(a.sends().by_status[static_cast<std::size_t>(SendStatus::kAttributed)] == 2);
  CHECK(a.sends().by_status[static_cast<std::size_t>(SendStatus::kMalformed)] == 1);
  CHECK(a.sends().attributed_by_rule[static_cast<std::size_t>(SendRule::kItemHeader)] == 1);
}

TEST_CASE("the stats document has the shape loadgen run reads") {
  ArrivalStats stats(500 * kNsPerMs);
  stats.record(100 * kNsPerMs, "a", Outcome::kOk, nth(1));
  stats.record(700 * kNsPerMs, "a", Outcome::kRateLimited, nth(2, SendRule::kAmzSdkRequest));
  stats.record(1200 * kNsPerMs, "b", Outcome::kConnectError, nth(40));
  stats.record(1300 * kNsPerMs, "b", Outcome::kOk, {SendStatus::kItemLimit, SendRule::kItemHeader});
  stats.record(1400 * kNsPerMs, "b", Outcome::kOk, {});
  const auto j = stats.to_json(1500 * kNsPerMs, 0.5);
  CHECK(j.at("clock_ns") == 1500 * kNsPerMs);
  CHECK(j.at("time_scale") == 0.5);
  CHECK(j.at("bin_ns") == 500 * kNsPerMs);
  CHECK(j.at("requests") == 5);
  CHECK(j.at("totals").size() == kOutcomeCount);
  CHECK(j.at("totals").at("ok") == 3);
  CHECK(j.at("totals").at("429") == 1);
  CHECK(j.at("totals").at("connect_error") == 1);
  const auto by_outcome = BinnedCounts::from_json(j.at("arrivals_by_outcome"));
  CHECK(j.at("arrivals_by_outcome").at("labels") == outcome_labels());
  CHECK(by_outcome.bins() == 3);
  CHECK(by_outcome.at(0, 0) == 1);
  CHECK(by_outcome.at(1, 1) == 1);
  CHECK(by_outcome.at(2, static_cast<std::size_t>(Outcome::kConnectError)) == 1);
  const auto by_send = BinnedCounts::from_json(j.at("arrivals_by_send"));
  CHECK(j.at("arrivals_by_send").at("labels") == send_labels());
  CHECK(by_send.at(0, 0) == 1);
  CHECK(by_send.at(1, 1) == 1);
  CHECK(by_send.at(2, kSendLabels - 1) == 1);  // 40th send: the last label, "16+"
  CHECK(by_send.bin_total(2) == 1);            // the two unattributed are not in it
  CHECK(by_outcome.bin_total(2) == 3);
  CHECK(j.at("send_attribution") == nlohmann::json::parse(R"({
    "attributed": 3, "unattributed": 2,
    "by_rule": {"x-attempt": 2, "x-stainless-retry-count": 0, "amz-sdk-request": 1,
                "attempt-header": 0, "item-header": 0, "client-header": 0},
    "unattributed_by_cause": {"none": 1, "malformed": 0, "item_limit": 1}})"));
  CHECK(j.at("tenants").at("a").at("requests") == 2);
  CHECK(j.at("tenants").at("a").at("totals").at("429") == 1);
  CHECK(j.at("tenants").at("b").at("totals").at("connect_error") == 1);
}

TEST_CASE("a send number of 10^12 or 2^63-1 is binned in 16+ and sizes nothing") {
  ArrivalStats stats(kNsPerSec);
  stats.record(0, "a", Outcome::kOk, nth(1'000'000'000'000));
  stats.record(0, "a", Outcome::kOk, nth(std::numeric_limits<std::int64_t>::max()));
  CHECK(stats.by_send().bins() == 1);
  CHECK(stats.by_send().labels() == kSendLabels);
  CHECK(stats.by_send().at(0, kSendLabels - 1) == 2);
  ArrivalLog log;
  log.record(0, 0, 0, "a", 200, nth(1'000'000'000'000), "c");
  CHECK(ArrivalLog::to_csv({&log}).find("\n0,a,200,1000000000000,c,x-attempt,0,,\n") !=
        std::string::npos);
}

TEST_CASE("metrics escape tenant label values") {
  ArrivalStats stats(kNsPerSec);
  stats.record(0, "we\"ird\\key", Outcome::kOk, nth(1));
  stats.record(0, "k", Outcome::kOk, {SendStatus::kMalformed, SendRule::kXAttempt});
  const auto text = stats.to_prometheus(2 * kNsPerSec);
  CHECK(text.find("fakeprovider_requests_total{outcome=\"ok\"} 2\n") != std::string::npos);
  CHECK(text.find("fakeprovider_requests_total{outcome=\"429\"} 0\n") != std::string::npos);
  CHECK(text.find("fakeprovider_tenant_requests_total{tenant=\"we\\\"ird\\\\key\",outcome=\"ok\"} "
                  "1\n") != std::string::npos);
  CHECK(text.find("fakeprovider_scenario_seconds 2") != std::string::npos);
  CHECK(text.find("fakeprovider_send_attribution_total{status=\"attributed\",rule=\"x-attempt\"} "
                  "1\n") != std::string::npos);
  CHECK(text.find("fakeprovider_send_attribution_total{status=\"malformed\"} 1\n") !=
        std::string::npos);
}
