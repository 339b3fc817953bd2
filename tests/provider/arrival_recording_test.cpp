#include <doctest/doctest.h>

#include "duration.hpp"
#include "recording/arrival_log.hpp"
#include "recording/arrival_stats.hpp"
#include "results.hpp"

using namespace stampede;

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
  a.record(0, 5, "k1", 200, 1, "c1");
  b.record(1, 7, "k,2", 429, 3, "");
  a.record(2, 7, "k1", 0, 1, "c\"3");
  b.record(3, 9, "k1", 429, 2, "c4");
  CHECK(a.size() == 2);
  CHECK(ArrivalLog::to_csv({&a, &b}) ==
        "t_ns,tenant,status,attempt,client_id\n"
        "5,k1,200,1,c1\n"
        "7,\"k,2\",429,3,\n"
        "7,k1,0,1,\"c\"\"3\"\n"
        "9,k1,429,2,c4\n");
  a.clear();
  CHECK(ArrivalLog::to_csv({&a}) == "t_ns,tenant,status,attempt,client_id\n");
}

TEST_CASE("stats of several threads add up") {
  ArrivalStats a(kNsPerSec);
  ArrivalStats b(kNsPerSec);
  a.record(0, "x", Outcome::kOk, 1);
  b.record(3 * kNsPerSec, "x", Outcome::kRateLimited, 2);
  b.record(3 * kNsPerSec, "y", Outcome::kOk, 1);
  a.merge(b);
  CHECK(a.totals().requests == 3);
  CHECK(a.totals().by_outcome[0] == 2);
  CHECK(a.tenants().at("x").requests == 2);
  CHECK(a.tenants().at("y").by_outcome[0] == 1);
  CHECK(a.by_outcome().bins() == 4);
  CHECK(a.by_outcome().at(3, 1) == 1);
  CHECK(a.by_send().at(3, 1) == 1);
}

TEST_CASE("the stats document has the shape loadgen run reads") {
  ArrivalStats stats(500 * kNsPerMs);
  stats.record(100 * kNsPerMs, "a", Outcome::kOk, 1);
  stats.record(700 * kNsPerMs, "a", Outcome::kRateLimited, 2);
  stats.record(1200 * kNsPerMs, "b", Outcome::kConnectError, 40);
  const auto j = stats.to_json(1500 * kNsPerMs, 0.5);
  CHECK(j.at("clock_ns") == 1500 * kNsPerMs);
  CHECK(j.at("time_scale") == 0.5);
  CHECK(j.at("bin_ns") == 500 * kNsPerMs);
  CHECK(j.at("requests") == 3);
  CHECK(j.at("totals").size() == kOutcomeCount);
  CHECK(j.at("totals").at("ok") == 1);
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
  CHECK(j.at("tenants").at("a").at("requests") == 2);
  CHECK(j.at("tenants").at("a").at("totals").at("429") == 1);
  CHECK(j.at("tenants").at("b").at("totals").at("connect_error") == 1);
}

TEST_CASE("metrics escape tenant label values") {
  ArrivalStats stats(kNsPerSec);
  stats.record(0, "we\"ird\\key", Outcome::kOk, 1);
  const auto text = stats.to_prometheus(2 * kNsPerSec);
  CHECK(text.find("fakeprovider_requests_total{outcome=\"ok\"} 1\n") != std::string::npos);
  CHECK(text.find("fakeprovider_requests_total{outcome=\"429\"} 0\n") != std::string::npos);
  CHECK(text.find("fakeprovider_tenant_requests_total{tenant=\"we\\\"ird\\\\key\",outcome=\"ok\"} "
                  "1\n") != std::string::npos);
  CHECK(text.find("fakeprovider_scenario_seconds 2") != std::string::npos);
}
