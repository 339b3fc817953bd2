// --trace-tenant against the real fakeprovider: an nginx access log that captured each
// request's API key is replayed as those tenants, so the provider's per-tenant allowance meets
// the traffic as it met production's; simulate's provider keys it the same. A trace's tokens
// are declared in the token header and charged to its tenant's token allowance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/nginx.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;
using support::NginxStaging;
using support::start_nginx;

namespace {

// A tenant's allowance over the whole run: an hour's fixed window, whatever the wall's pace.
constexpr std::int64_t kAllowance = 5;
const std::vector<std::string> kPerTenantLimit{"--allowance", "5/h", "--limiter", "fixed-window"};
// A refused item is sent once more, at once, and refused again in the same window.
const std::vector<std::string> kOneRetry{"--strategy", "none", "--max-attempts", "1"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Requests per X-Api-Key of a log in NginxStaging::kKeyedFormat, "" for the requests without
// one (nginx writes "-"), as the provider names a tenant.
std::map<std::string, std::int64_t> log_per_key(const std::string& log) {
  std::map<std::string, std::int64_t> out;
  for (const auto& line : lines(read_file(log))) {
    if (line.empty()) continue;
    const auto open = line.find('"');
    const std::string key = line.substr(open + 1, line.find('"', open + 1) - open - 1);
    ++out[key == "-" ? "" : key];
  }
  return out;
}

std::int64_t admitted(std::int64_t requests) {
  return std::min(requests, kAllowance);
}

// A tenant's requests, or its arrivals a layer answered (a reason); -1 for a tenant not seen.
std::int64_t tenant_count(const json& stats, const std::string& tenant, const std::string& what) {
  const auto t = stats["tenants"].find(tenant);
  if (t == stats["tenants"].end()) return -1;
  return what == "requests" ? (*t)["requests"].get<std::int64_t>()
                            : (*t)["reasons"][what].get<std::int64_t>();
}

}  // namespace

TEST_CASE("live: a trace of a log's API keys replays them as tenants, under their allowance") {
  const auto started = start_nginx();
  if (!started) return;
  NginxStaging& nginx = *started;
  // One heavy tenant, two light ones, and requests with no key, interleaved.
  for (int round = 0; round < 12; ++round) {
    CHECK(http(nginx.http_port(), "GET", "/v1", {{"X-Api-Key", "heavy"}}).status == 200);
    if (round % 4 == 0)
      CHECK(http(nginx.http_port(), "GET", "/v1", {{"X-Api-Key", "key-a"}}).status == 200);
    if (round % 6 == 0)
      CHECK(http(nginx.http_port(), "GET", "/v1", {{"X-Api-Key", "key-b"}}).status == 200);
    if (round % 6 == 3) CHECK(http(nginx.http_port(), "GET", "/v1").status == 200);
  }
  nginx.stop_and_read_log();
  const auto per_key = log_per_key(nginx.keyed_log());
  REQUIRE(per_key ==
          std::map<std::string, std::int64_t>{{"", 2}, {"heavy", 12}, {"key-a", 3}, {"key-b", 2}});
  const std::vector<std::string> trace{
      "--workload",     "trace",
      "--trace",        nginx.keyed_log(),
      "--trace-format", std::string("nginx:") + NginxStaging::kKeyedFormat,
      "--trace-tenant", "http_x_api_key",
      "--clients",      "50"};

  FakeProvider p(kPerTenantLimit);
  REQUIRE(p.started());
  const auto r = run_loadgen(
      std::vector<std::string>{"--url", p.url(), "--provider-admin", p.admin(), "--expect-none"} +
      trace + kOneRetry);
  INFO(r.err);
  REQUIRE(r.results.is_object());
  const json stats = p.stats();
  REQUIRE(stats.is_object());
  CHECK(stats["tenants"].size() == per_key.size());
  std::int64_t delivered = 0;
  for (const auto& [key, n] : per_key) {
    CAPTURE(key);
    // Each tenant's own allowance: the heavy one refused past it, the light ones all served.
    CHECK(tenant_count(stats, key, "served") == admitted(n));
    CHECK(tenant_count(stats, key, "request_rate_exceeded") == 2 * (n - admitted(n)));
    // The log's requests, and a retry for each refused one.
    CHECK(tenant_count(stats, key, "requests") == n + (n - admitted(n)));
    delivered += admitted(n);
  }
  CHECK(r.results["counts"]["delivered"] == delivered);

  // simulate's provider keys its allowance by the same tenants: the same items delivered.
  const TempDir dir;
  const auto sim =
      run_binary("loadgen", std::vector<std::string>{"simulate", "--out", dir.file("sim.json"),
                                                     "--no-report", "-q", "--expect-none"} +
                                trace + kPerTenantLimit + kOneRetry);
  INFO(sim.err);
  REQUIRE(sim.code == 0);
  const json simulated = json::parse(read_file(dir.file("sim.json")));
  CHECK(simulated["counts"]["delivered"] == delivered);
  CHECK(simulated["counts"]["dead_lettered"] == 19 - delivered);
}

TEST_CASE("live: a CSV trace's tenants and tokens reach the provider's token allowance") {
  // Tenant a declares 60 tokens twice against 100 an hour: its second is refused for tokens;
  // b declares 10 twice and is served. Without the trace's tokens each would count 1.
  FakeProvider p({"--token-allowance", "100/h", "--limiter", "fixed-window"});
  REQUIRE(p.started());
  const TempDir dir;
  const auto trace =
      dir.write("trace.csv", "time,tenant,tokens\n0.0,a,60\n0.1,b,10\n0.2,a,60\n0.3,b,10\n");
  const auto r = run_loadgen(std::vector<std::string>{"--url", p.url(), "--provider-admin",
                                                      p.admin(), "--workload", "trace", "--trace",
                                                      trace, "--expect-none"} +
                             kOneRetry);
  INFO(r.err);
  REQUIRE(r.results.is_object());
  const json stats = p.stats();
  REQUIRE(stats.is_object());
  CHECK(tenant_count(stats, "a", "served") == 1);
  CHECK(tenant_count(stats, "a", "token_rate_exceeded") == 2);
  CHECK(tenant_count(stats, "b", "served") == 2);
  CHECK(r.results["counts"]["delivered"] == 3);
}

TEST_CASE("live: a --trace-tenant the trace does not have stops loadgen run before any load") {
  FakeProvider p({});
  REQUIRE(p.started());
  const TempDir dir;
  const auto trace = dir.write("trace.csv", "time,tenant\n1.0,a\n");
  const auto r = run_loadgen({"--url", p.url(), "--provider-admin", p.admin(), "--workload",
                              "trace", "--trace", trace, "--trace-tenant", "http_x_api_key"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--trace-tenant http_x_api_key: the CSV header has no such column; its "
                   "columns are time, tenant") != std::string::npos);
  CHECK_FALSE(r.results.is_object());
  CHECK(p.stats()["requests"] == 0);
}
