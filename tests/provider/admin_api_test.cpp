#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "duration.hpp"
#include "results.hpp"
#include "scenario.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"

using namespace stampede;
using namespace support;

namespace {

// name{labels} -> value, from a Prometheus text page.
std::map<std::string, double> parse_metrics(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

std::int64_t sum_label(const nlohmann::json& histogram, std::size_t label) {
  std::int64_t sum = 0;
  for (const auto& row : histogram.at("counts")) sum += row.at(label).get<std::int64_t>();
  return sum;
}

}  // namespace

TEST_CASE("stats and metrics count exactly what was sent") {
  RecordingProvider p({"--allowance", "3/min", "--limiter", "fixed-window", "--bin", "100ms"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  // k1: sends numbered 1..20 (3 ok, 17 rate limited); "odd,\"key": 2 sends, one numbered by
  // nothing, one with a malformed attempt number: both unattributed, neither a first send.
  for (int i = 1; i <= 20; ++i) {
    c.request("GET", "/", {{"X-Api-Key", "k1"}, {"X-Attempt", std::to_string(i)}});
  }
  c.request("GET", "/", {{"X-Api-Key", "odd,\"key"}});
  c.request("GET", "/", {{"X-Api-Key", "odd,\"key"}, {"X-Attempt", "two"}});

  const auto stats = p.stats();
  CHECK(stats.at("requests") == 22);
  CHECK(stats.at("bin_ns") == 100 * kNsPerMs);
  CHECK(stats.at("time_scale") == 1.0);
  CHECK(stats.at("clock_ns").get<std::int64_t>() > 0);
  CHECK(stats.at("totals").at("ok") == 5);
  CHECK(stats.at("totals").at("429") == 17);
  const auto& by_outcome = stats.at("arrivals_by_outcome");
  CHECK(by_outcome.at("bin_ms") == 100);
  CHECK(by_outcome.at("labels") == outcome_labels());
  CHECK(sum_label(by_outcome, 0) == 5);
  CHECK(sum_label(by_outcome, 1) == 17);
  const auto& by_send = stats.at("arrivals_by_send");
  CHECK(by_send.at("labels") == send_labels());
  CHECK(sum_label(by_send, 0) == 1);  // k1's first send only
  for (std::size_t label = 1; label < kSendLabels - 1; ++label) {
    CAPTURE(label);
    CHECK(sum_label(by_send, label) == 1);
  }
  CHECK(sum_label(by_send, kSendLabels - 1) == 5);  // sends 16..20
  const auto& sends = stats.at("send_attribution");
  CHECK(sends.at("attributed") == 20);
  CHECK(sends.at("unattributed") == 2);
  CHECK(sends.at("by_rule").at("x-attempt") == 20);
  CHECK(sends.at("unattributed_by_cause").at("none") == 1);
  CHECK(sends.at("unattributed_by_cause").at("malformed") == 1);
  CHECK(stats.at("tenants").at("k1").at("requests") == 20);
  CHECK(stats.at("tenants").at("k1").at("totals").at("429") == 17);
  CHECK(stats.at("tenants").at("odd,\"key").at("totals").at("ok") == 2);

  const auto metrics = http(p.admin_port(), "GET", "/metrics");
  CHECK(metrics.status == 200);
  CHECK(metrics.header("content-type").find("text/plain") == 0);
  const auto m = parse_metrics(metrics.body);
  CHECK(m.at("fakeprovider_requests_total{outcome=\"ok\"}") == 5);
  CHECK(m.at("fakeprovider_requests_total{outcome=\"429\"}") == 17);
  CHECK(m.at("fakeprovider_requests_total{outcome=\"503\"}") == 0);
  CHECK(m.at("fakeprovider_tenant_requests_total{tenant=\"k1\",outcome=\"429\"}") == 17);
  CHECK(m.at("fakeprovider_tenant_requests_total{tenant=\"odd,\\\"key\",outcome=\"ok\"}") == 2);
  CHECK(m.count("fakeprovider_scenario_seconds") == 1);

  REQUIRE(p.stop() == 0);
  const auto final_stats = nlohmann::json::parse(read_file(p.stats_path()));
  CHECK(final_stats.at("requests") == 22);
  CHECK(final_stats.at("totals") == stats.at("totals"));
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 23);
  CHECK(rows[0] == std::vector<std::string>{"t_ns", "tenant", "status", "attempt", "client_id",
                                            "send_rule", "decided_t_ns", "upstream", "stream"});
  CHECK(rows[20] == std::vector<std::string>{rows[20][0], "k1", "429", "20", "", "x-attempt",
                                             rows[20][6], "", ""});
  CHECK(rows[21] == std::vector<std::string>{rows[21][0], "odd,\"key", "200", "", "", "none",
                                             rows[21][6], "", ""});
  CHECK(rows[22][3] == "");
  CHECK(rows[22][5] == "malformed:x-attempt");
}

TEST_CASE("reset zeroes the counters, refreshes the allowance and restarts the clock") {
  RecordingProvider p({"--allowance", "2/min", "--limiter", "fixed-window"});
  REQUIRE(p.started());
  for (int i = 0; i < 3; ++i) http(p.data_port(), "GET", "/");
  CHECK(http(p.data_port(), "GET", "/").status == 429);
  const auto outage = http(p.admin_port(), "POST", "/admin/outage?for=10m&status=529");
  CHECK(outage.status == 200);
  CHECK(http(p.data_port(), "GET", "/").status == 529);
  const auto before = p.stats();
  CHECK(before.at("requests") == 5);

  const auto reset = http(p.admin_port(), "POST", "/admin/reset");
  CHECK(reset.status == 200);
  const auto after = p.stats();
  CHECK(after.at("requests") == 0);
  CHECK(after.at("totals").at("429") == 0);
  CHECK(after.at("arrivals_by_outcome").at("counts").empty());
  CHECK(after.at("tenants").empty());
  // A fresh window (the old one still had a minute to go) and no admin outage.
  CHECK(http(p.data_port(), "GET", "/").status == 200);
  CHECK(http(p.data_port(), "GET", "/").status == 200);
  CHECK(http(p.data_port(), "GET", "/").status == 429);
  CHECK(p.stop() == 0);
  CHECK(parse_csv(read_file(p.arrivals_path())).size() == 4);
}

TEST_CASE("reset ?at= puts t = 0 at a Unix time (a sharded run's --start-at), a bad one is 400") {
  RecordingProvider p({});
  REQUIRE(p.started());
  const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  // An hour ahead: the provider's clock stands an hour before its t = 0.
  const auto ahead =
      http(p.admin_port(), "POST", "/admin/reset?at=" + std::to_string(now_s + 3600));
  REQUIRE(ahead.status == 200);
  const auto clock_ns = nlohmann::json::parse(ahead.body).at("clock_ns").get<std::int64_t>();
  CHECK(clock_ns < -3590 * kNsPerSec);
  CHECK(clock_ns > -3601 * kNsPerSec);
  for (const std::string& bad :
       std::vector<std::string>{"", "soon", "12x", "nan", "inf", std::to_string(now_s + 2 * 86400),
                                std::to_string(now_s - 2 * 86400)}) {
    CAPTURE(bad);
    const auto r = http(p.admin_port(), "POST", "/admin/reset?at=" + bad);
    CHECK(r.status == 400);
    CHECK(r.body.find("Unix time") != std::string::npos);
  }
}

TEST_CASE("POST /admin/outage starts an outage now, with Retry-After to its end") {
  RecordingProvider p({});
  REQUIRE(p.started());
  const auto r = http(p.admin_port(), "POST", "/admin/outage?for=600s&status=529");
  REQUIRE(r.status == 200);
  const auto window = nlohmann::json::parse(r.body);
  const auto end_ns = window.at("end_ns").get<std::int64_t>();
  CHECK(end_ns - window.at("start_ns").get<std::int64_t>() == 600 * kNsPerSec);
  const auto answer = http(p.data_port(), "GET", "/", {{"X-Client-Id", "x"}});
  CHECK(answer.status == 529);
  CHECK(nlohmann::json::parse(answer.body).at("error").at("type") == "overloaded_error");
  // A second outage of another kind, for the statuses the admin API accepts.
  CHECK(http(p.admin_port(), "POST", "/admin/outage?for=1s&status=reset").status == 200);
  for (const char* bad : {"/admin/outage?for=abc&status=529", "/admin/outage?for=0s",
                          "/admin/outage?status=529", "/admin/outage?for=1s&status=404"}) {
    CAPTURE(std::string(bad));
    const auto e = http(p.admin_port(), "POST", bad);
    CHECK(e.status == 400);
    CHECK(nlohmann::json::parse(e.body).at("error").is_string());
  }
  CHECK(http(p.admin_port(), "GET", "/admin/nothing").status == 404);
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 2);
  const auto t_ns = std::stoll(rows[1][6]);  // decided_t_ns: the hint's time
  CHECK(answer.header_int("retry-after") == (end_ns - t_ns + kNsPerSec - 1) / kNsPerSec);
}

TEST_CASE("with --admin-token every admin call but /healthz needs the bearer token") {
  RecordingProvider p({"--admin-token", "s3cret"});
  REQUIRE(p.started());
  CHECK(http(p.admin_port(), "GET", "/admin/stats").status == 401);
  CHECK(http(p.admin_port(), "GET", "/metrics").status == 401);
  CHECK(http(p.admin_port(), "POST", "/admin/reset").status == 401);
  for (const char* wrong :
       {"Bearer s3cre", "Bearer s3cret2", "Bearer S3CRET", "s3cret", "Basic czNjcmV0", "Bearer "}) {
    CAPTURE(std::string(wrong));
    CHECK(http(p.admin_port(), "GET", "/admin/stats", {{"Authorization", wrong}}).status == 401);
  }
  CHECK(http(p.admin_port(), "GET", "/admin/stats", {{"Authorization", "Bearer s3cret"}}).status ==
        200);
  CHECK(http(p.admin_port(), "GET", "/healthz").status == 200);
  // The data plane is not the admin API: no token there.
  CHECK(http(p.data_port(), "GET", "/").status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("an admin port beyond loopback refuses to start without a token") {
  for (const char* address : {"0.0.0.0:0", "[::]:0"}) {
    CAPTURE(std::string(address));
    const auto e = run_provider_to_exit({"--listen", "127.0.0.1:0", "--admin-listen", address});
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(e.err.find("--admin-token") != std::string::npos);
  }
}

TEST_CASE("GET /admin/settings: the provider section it enforces and its data plane's port") {
  // With --processes the workers serve the one data port and this process decides for them
  // all: one document, the port they share.
  FakeProvider p({"--allowance", "1000/s", "--outage", "0s-20s:529", "--limiter", "token-bucket",
                  "--processes", "2"});
  REQUIRE(p.started());
  const auto r = http(p.admin_port(), "GET", "/admin/settings");
  REQUIRE(r.status == 200);
  CHECK(r.header("content-type") == "application/json");
  const auto settings = nlohmann::json::parse(r.body);
  CHECK(settings.at("port") == p.data_port());
  CHECK(settings.at("listen") == "http://127.0.0.1:" + std::to_string(p.data_port()));
  CHECK(settings.at("processes") == 2);
  CHECK(settings.at("store").is_null());
  CHECK(settings.at("time_scale") == 1.0);
  const auto& provider = settings.at("provider");
  CHECK(provider.at("allowance") == "1000/s");
  CHECK(provider.at("limiter") == "token-bucket");
  CHECK(provider.at("outages") == nlohmann::json::array({"0s-20s:529"}));
  // The scenario's own section: a scenario file given it reads back as the same provider.
  const auto back = scenario_from_json({{"provider", provider}});
  REQUIRE(back);
  CHECK(to_json(*back).at("provider") == provider);
}
