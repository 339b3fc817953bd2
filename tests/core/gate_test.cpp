// The staging gate's metrics and its checks: what each new summary field counts, which metric
// needs what, the default expectation and the reasons it gives.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gate.hpp"
#include "results.hpp"
#include "support/process.hpp"

using namespace stampede;

namespace {

constexpr std::int64_t kSec = kNsPerSec;

ProviderConfig with_allowance(const char* rate) {
  ProviderConfig p;
  p.allowance = *parse_rate(rate);
  return p;
}

// n sends at second `s`, each the item's send number `send`, all coming to `outcome`.
void sends(Recording& r, std::int64_t s, int send, Outcome outcome, int n) {
  for (int i = 0; i < n; ++i) r.record_send(s * kSec + i, send, outcome);
}

Assertion parsed(const char* text) {
  const auto a = parse_assertion(text);
  REQUIRE_MESSAGE(a, a.error());
  return *a;
}

}  // namespace

TEST_CASE("the staging metrics: delivery, status shares, retries, p95") {
  Recording r;
  r.items = 8;
  r.delivered = 6;
  r.dead_lettered = 2;
  sends(r, 0, 1, Outcome::kOk, 4);
  sends(r, 0, 1, Outcome::kRateLimited, 4);
  sends(r, 1, 2, Outcome::kRateLimited, 2);
  sends(r, 1, 2, Outcome::kUnavailable, 1);
  sends(r, 1, 2, Outcome::kOverloaded, 1);
  sends(r, 2, 3, Outcome::kClientError, 2);
  sends(r, 2, 3, Outcome::kServerError, 1);
  sends(r, 2, 2, Outcome::kConnectError, 2);
  sends(r, 3, 4, Outcome::kTimeout, 1);
  sends(r, 3, 2, Outcome::kOk, 2);
  for (std::int64_t ms = 1; ms <= 100; ++ms) r.item_latency_ns.record(ms * kNsPerMs);
  REQUIRE(r.requests == 20);

  const Summary s = summarize(r, with_allowance("10/s"), false);
  struct Row {
    const char* metric;
    double value;
  };
  for (const Row& row :
       {Row{"delivered_ratio", 0.75}, Row{"dead_letter_ratio", 0.25}, Row{"retries", 12},
        Row{"retry_share", 0.6}, Row{"status_ratio_2xx", 0.3}, Row{"status_ratio_4xx", 0.4},
        Row{"status_ratio_429", 0.3}, Row{"status_ratio_5xx", 0.15}, Row{"status_ratio_503", 0.05},
        Row{"status_ratio_529", 0.05}, Row{"status_ratio_connect_error", 0.1},
        Row{"status_ratio_timeout", 0.05}, Row{"amplification", 2.5}}) {
    CAPTURE(row.metric);
    CHECK(*metric_value(s, row.metric) == doctest::Approx(row.value));
  }
  CHECK(s.status_ratio_bad_response == 0);
  sends(r, 3, 2, Outcome::kBadResponse, 5);
  // An answer that is not HTTP is its own share: none of the statuses' nor connect_error's.
  const Summary with_bad = summarize(r, with_allowance("10/s"), false);
  CHECK(*metric_value(with_bad, "status_ratio_bad_response") == doctest::Approx(0.2));
  CHECK(with_bad.status_ratio_connect_error == doctest::Approx(0.08));
  CHECK(with_bad.status_ratio_5xx == doctest::Approx(0.12));
  CHECK(s.p95_s == doctest::Approx(0.095).epsilon(0.01));
  CHECK(s.p50_s <= s.p95_s);
  CHECK(s.p95_s <= s.p99_s);
  // No provider view: the provider's own count is not known.
  CHECK(s.provider_requests == 0);
}

TEST_CASE("the status shares of a run with no request are 0, not NaN") {
  const Summary s = summarize(Recording{}, with_allowance("10/s"), false);
  for (const char* m : {"status_ratio_2xx", "status_ratio_429", "retry_share", "delivered_ratio"}) {
    CAPTURE(m);
    CHECK(*metric_value(s, m) == 0);
  }
}

TEST_CASE("peak_retry_ratio: the busiest second among retries, past the first and the outage") {
  Recording r;
  sends(r, 0, 1, Outcome::kRateLimited, 50);  // the first wave
  sends(r, 0, 2, Outcome::kRateLimited, 40);  // and the retries it provoked at once
  sends(r, 2, 2, Outcome::kRateLimited, 30);
  sends(r, 2, 1, Outcome::kOk, 25);  // first sends of later items: not retries
  sends(r, 5, 3, Outcome::kOk, 20);
  sends(r, 6, 1, Outcome::kOk, 60);

  const Summary plain = summarize(r, with_allowance("10/s"), false);
  CHECK(plain.peak_retries == 30);
  CHECK(plain.peak_retry_second == 2);
  CHECK(plain.peak_retry_ratio == doctest::Approx(3));
  // peak_ratio counts every arrival, the first wave included.
  CHECK(plain.peak_arrivals == 90);
  CHECK(plain.peak_ratio == doctest::Approx(9));

  ProviderConfig outage = with_allowance("10/s");
  outage.outages.push_back({0, 3 * kSec, OutageAction::kStatus503});
  const Summary after = summarize(r, outage, false);
  CHECK(after.peak_retries == 20);
  CHECK(after.peak_retry_second == 5);
  CHECK(after.peak_retry_ratio == doctest::Approx(2));

  ProviderConfig per_minute = with_allowance("600/min");
  CHECK(summarize(r, per_minute, false).peak_retry_ratio == doctest::Approx(3));
  // Nothing to measure against: the ratios stay 0 (and asserting on them is refused).
  const Summary unlimited = summarize(r, ProviderConfig{}, false);
  CHECK(unlimited.peak_retries == 30);
  CHECK(unlimited.peak_retry_ratio == 0);
  CHECK(unlimited.peak_ratio == 0);
}

TEST_CASE("provider_requests is the provider's own count, only with its view") {
  Recording r;
  sends(r, 0, 1, Outcome::kOk, 3);
  for (int i = 0; i < 5; ++i) r.record_arrival(0, 1, Outcome::kOk);
  CHECK(summarize(r, ProviderConfig{}, true).provider_requests == 5);
  CHECK(summarize(r, ProviderConfig{}, false).provider_requests == 0);
}

TEST_CASE("a metric that needs what the run lacks is a usage error naming both") {
  struct Row {
    const char* text;
    MetricContext context;
    const char* error;  // empty: means something
  };
  const MetricContext none{false, false};
  const MetricContext allowance{true, false};
  const MetricContext provider{false, true};
  for (const Row& row : {
           Row{"peak_ratio <= 2", none, "peak_ratio is measured against the provider's allowance"},
           Row{"peak_retry_ratio < 1.5", none, "peak_retry_ratio is measured against"},
           Row{"peak_ratio <= 2", allowance, ""},
           Row{"peak_retry_ratio <= 2", allowance, ""},
           Row{"peak_ratio <= 2", provider, "--allowance"},
           Row{"provider_requests == 100", allowance,
               "provider_requests is the provider's own record, and this run has none"},
           Row{"requests == provider_requests", none, "give --provider-admin"},
           Row{"provider_requests == requests", provider, ""},
           Row{"peak_arrivals <= 100", none, ""},
           Row{"peak_retries <= 100", none, ""},
           Row{"delivered == items", none, ""},
       }) {
    CAPTURE(row.text);
    const auto e = meaning_error(parsed(row.text), row.context);
    if (std::string(row.error).empty()) {
      CHECK_FALSE(e);
    } else {
      REQUIRE(e);
      CHECK(e->find(std::string("'") + row.text + "'") != std::string::npos);
      CHECK(e->find(row.error) != std::string::npos);
    }
  }
}

TEST_CASE("a capacity is an allowance to measure the peak against") {
  ProviderConfig p;
  CHECK_FALSE(metric_context("run", p, false).allowance);
  p.capacity = *parse_rate("50/s");
  CHECK(metric_context("run", p, false).allowance);
  CHECK(metric_context("run", with_allowance("1/s"), true).provider_view);
}

TEST_CASE("a run's checks: expectations, --assert, the default; each once") {
  const MetricContext context{true, false};
  SUBCASE("the default expectation comes last") {
    const auto checks = gate_assertions({"dead_lettered == 0"}, {"drain_s <= 120"}, false, context);
    REQUIRE(checks);
    REQUIRE(checks->size() == 3);
    CHECK(checks->at(2).text == kDefaultExpectation);
  }
  SUBCASE("--expect-none drops it") {
    const auto checks = gate_assertions({}, {}, true, context);
    REQUIRE(checks);
    CHECK(checks->empty());
  }
  SUBCASE("an expectation repeated by --assert, however spelled, is one check") {
    const auto checks = gate_assertions(
        {"peak_ratio <= 2", "delivered == items"},
        {"peak_ratio<=2", "peak_ratio <= 2.0", "delivered > 0", "peak_ratio < 2"}, false, context);
    REQUIRE(checks);
    std::vector<std::string> texts;
    for (const auto& a : *checks) texts.push_back(a.text);
    CHECK(texts == std::vector<std::string>{"peak_ratio <= 2", "delivered == items",
                                            "delivered > 0", "peak_ratio < 2"});
  }
  SUBCASE("a meaningless check is refused, a bad one too") {
    const auto refused = gate_assertions({}, {"peak_ratio <= 2"}, false, MetricContext{});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find("peak_ratio") != std::string::npos);
    CHECK(refused.error().find("allowance") != std::string::npos);
    CHECK_FALSE(gate_assertions({}, {"bogus <= 2"}, false, context));
  }
}

TEST_CASE("a check from the scenario that fails names its scenario file, an --assert does not") {
  const auto from_file =
      gate_assertions({"peak_ratio <= 2"}, {}, true, MetricContext{}, "ours.json");
  REQUIRE_FALSE(from_file);
  CHECK(from_file.error().find("scenario file 'ours.json': expectations:") != std::string::npos);
  const auto bad = gate_assertions({"peak_ratio =< 2"}, {}, true, MetricContext{}, "ours.json");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("ours.json") != std::string::npos);
  CHECK(bad.error().find("'=<'") != std::string::npos);
  const auto flag = gate_assertions({}, {"peak_ratio <= 2"}, true, MetricContext{}, "ours.json");
  REQUIRE_FALSE(flag);
  CHECK(flag.error().find("ours.json") == std::string::npos);
}

TEST_CASE("the default expectation says why nothing was delivered") {
  const auto checks = *gate_assertions({}, {}, false, MetricContext{});
  struct Row {
    const char* name;
    std::vector<std::pair<Outcome, int>> sent;
    std::map<int, std::int64_t> statuses;
    const char* why;
  };
  for (const Row& row : {
           Row{"all 404",
               {{Outcome::kClientError, 50}},
               {{404, 50}},
               "no item was delivered: the target answered only statuses that are not "
               "retryable, 404 to 50 of 50 requests; check the URL, the method, the headers and "
               "the key"},
           Row{"401 and 403, some timeouts",
               {{Outcome::kClientError, 5}, {Outcome::kTimeout, 2}},
               {{401, 3}, {403, 2}},
               "not retryable, 401 to 3 and 403 to 2 of 7 requests (2 timed out and 0 were "
               "refused or reset)"},
           Row{"never answered",
               {{Outcome::kTimeout, 8}, {Outcome::kConnectError, 2}},
               {},
               "no item was delivered: the target never answered: of 10 requests, 8 timed out "
               "and 2 were refused or reset"},
           Row{"429 and 503 only",
               {{Outcome::kRateLimited, 6}, {Outcome::kUnavailable, 4}},
               {{429, 6}, {503, 4}},
               "no item was delivered: no request got a 2xx (429: 6, 503: 4)"},
           Row{"only malformed answers, some refused",
               {{Outcome::kBadResponse, 6}, {Outcome::kConnectError, 1}},
               {},
               "no item was delivered: the target answered only with what is not HTTP/1.x, "
               "bad_response to 6 of 7 requests (0 timed out and 1 were refused or reset); is it "
               "an HTTP/1.x server (not TLS, not HTTP/2 only), or a broken proxy between?"},
           Row{"nothing sent", {}, {}, "no item was delivered: no request was sent"},
       }) {
    CAPTURE(row.name);
    Results r;
    r.recording.items = 5;
    for (const auto& [outcome, n] : row.sent) sends(r.recording, 0, 1, outcome, n);
    r.recording.statuses = row.statuses;
    r.recording.dead_lettered = 5;
    r.summary = summarize(r.recording, r.scenario.provider, false);
    const auto verdicts = evaluate_gate(checks, r, MetricContext{});
    REQUIRE(verdicts.size() == 1);
    CHECK_FALSE(verdicts[0].passed);
    CHECK(verdicts[0].why.find(row.why) != std::string::npos);
  }
}

TEST_CASE("a delivered run passes the default; a check that lost its meaning fails") {
  Results r;
  r.recording.items = 2;
  r.recording.delivered = 2;
  sends(r.recording, 0, 1, Outcome::kOk, 2);
  r.summary = summarize(r.recording, r.scenario.provider, false);
  const auto checks =
      *gate_assertions({}, {"provider_requests == requests"}, false, MetricContext{false, true});
  // Planned with the provider's view, whose stats then could not be read.
  const auto verdicts = evaluate_gate(checks, r, MetricContext{false, false});
  REQUIRE(verdicts.size() == 2);
  CHECK_FALSE(verdicts[0].passed);
  CHECK(verdicts[0].why.find("provider_requests is the provider's own record") !=
        std::string::npos);
  CHECK(verdicts[1].text == kDefaultExpectation);
  CHECK(verdicts[1].passed);
  CHECK(verdicts[1].why.empty());
}

TEST_CASE("a verdict's why survives the results document; old documents load without it") {
  Results r;
  r.verdicts = {{"delivered > 0", false, 0, 0, "no item was delivered: no request was sent"},
                {"requests < 10", true, 1, 10, {}}};
  auto j = to_json(r);
  CHECK(j["assertions"][0]["why"] == "no item was delivered: no request was sent");
  CHECK_FALSE(j["assertions"][1].contains("why"));
  const auto back = results_from_json(j);
  REQUIRE_MESSAGE(back, back.error());
  CHECK(back->verdicts[0].why == r.verdicts[0].why);
  CHECK(back->verdicts[1].why.empty());
}

TEST_CASE("a document without the clients' send histogram or statuses still loads") {
  Results r;
  r.recording.record_send(0, 2, Outcome::kOk);
  r.recording.statuses[200] = 1;
  auto j = to_json(r);
  CHECK(j["counts"]["statuses"]["200"] == 1);
  CHECK(j["histograms"]["client_sends_by_send"]["labels"] == nlohmann::json::array({"1", "2+"}));
  const auto back = results_from_json(j);
  REQUIRE_MESSAGE(back, back.error());
  CHECK(back->recording.client_by_send.at(0, 1) == 1);
  CHECK(back->recording.statuses == r.recording.statuses);

  j["histograms"].erase("client_sends_by_send");
  j["counts"].erase("statuses");
  const auto old = results_from_json(j);
  REQUIRE_MESSAGE(old, old.error());
  CHECK(old->recording.client_by_send.total() == 0);
  CHECK(old->recording.statuses.empty());

  j["counts"]["statuses"] = {{"4o4", 1}};
  const auto bad = results_from_json(j);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("counts.statuses") != std::string::npos);
}

TEST_CASE("every metric has its row in docs/RESULTS.md") {
  std::ifstream in(support::source_path("docs/RESULTS.md"));
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& m : kMetrics) {
    CAPTURE(m.name);
    CHECK(doc.find("`" + std::string(m.name) + "`") != std::string::npos);
  }
}
