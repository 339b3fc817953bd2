// Values a client or an admin caller chose, replayed against the real binary: what the fuzzers
// in fuzz/ found or were built to find, where it shows only through the admin API's answers.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "utf8.hpp"

using namespace support;

TEST_CASE("an admin outage as long as a duration can be ends at the end of time") {
  // fuzz_provider_request: start_outage added the duration to now and overflowed, so the
  // window ended before it began and the outage never applied.
  RecordingProvider p({"--allowance", "100/s"});
  REQUIRE(p.started());
  const auto r = http(p.admin_port(), "POST", "/admin/outage?for=9223372036854775799ns&status=503");
  REQUIRE(r.status == 200);
  const auto window = nlohmann::json::parse(r.body);
  CHECK(window.at("end_ns").get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  const auto answer = http(p.data_port(), "GET", "/");
  CHECK(answer.status == 503);
  CHECK(answer.header_int("retry-after") > 0);
  CHECK(p.stats().at("totals").at("503") == 1);
  CHECK(p.stop() == 0);
}

TEST_CASE(
    "tenant values that are not UTF-8 or hold quotes come back escaped in stats and metrics") {
  RecordingProvider p({"--allowance", "100/s"});
  REQUIRE(p.started());
  const std::string not_utf8 = "key-\xff\xfe";
  const std::string quoted = "a\"b\\c";
  CHECK(http(p.data_port(), "GET", "/", {{"X-Api-Key", not_utf8}}).status == 200);
  CHECK(http(p.data_port(), "GET", "/", {{"X-Api-Key", quoted}}).status == 200);
  // GET /admin/stats used to throw in dump() on the first and answer 500.
  const auto stats = http(p.admin_port(), "GET", "/admin/stats");
  REQUIRE(stats.status == 200);
  const auto tenants = nlohmann::json::parse(stats.body).at("tenants");
  CHECK(tenants.contains("key-\xEF\xBF\xBD\xEF\xBF\xBD"));
  CHECK(tenants.contains(quoted));
  CHECK(stats.body.find(not_utf8) == std::string::npos);
  const auto metrics = http(p.admin_port(), "GET", "/metrics");
  REQUIRE(metrics.status == 200);
  CHECK(metrics.body.find("tenant=\"a\\\"b\\\\c\"") != std::string::npos);
  // Prometheus rejects the whole scrape over one label that is not UTF-8.
  CHECK(metrics.body.find("tenant=\"key-\xEF\xBF\xBD\xEF\xBF\xBD\"") != std::string::npos);
  CHECK(stampede::valid_utf8(metrics.body) == metrics.body);
  // --stats-out writes the same document on exit.
  CHECK(p.stop() == 0);
  const auto written = nlohmann::json::parse(read_file(p.stats_path()));
  CHECK(written.at("tenants").size() == 2);
}

TEST_CASE("provider: spaces and tabs after a header value are not part of it (RFC 9110 OWS)") {
  // The head reader drops the OWS before a value and keeps the OWS after it: unless trimmed,
  // "k " would be another tenant than "k", "X-Tokens: 5 " a 400, "X-Client-Id: c " another
  // client.
  RecordingProvider p({"--allowance", "100/s", "--token-allowance", "1000/min"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const std::vector<Headers> sends{
      {{"X-Api-Key", "k"}, {"X-Tokens", "5"}, {"X-Client-Id", "c"}},
      {{"X-Api-Key", "k "}, {"X-Tokens", "5 "}, {"X-Client-Id", "c\t"}},
      {{"X-Api-Key", "k\t "}, {"X-Tokens", "5\t"}, {"X-Attempt", "3 "}},
      {{"X-Api-Key", "k"}, {"X-Tokens", "5"}, {"X-Stainless-Retry-Count", "1\t"}},
  };
  for (const auto& headers : sends) {
    const auto r = c.request("POST", "/v1/messages", headers);
    CAPTURE(r.body);
    CHECK(r.status == 200);
  }
  const auto tenants = p.stats().at("tenants");
  CHECK(tenants.size() == 1);
  CHECK(tenants.at("k").at("requests") == 4);
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 5);  // the header and four arrivals
  const std::vector<std::vector<std::string>> want{{"k", "1", "c", "client-header"},
                                                   {"k", "2", "c", "client-header"},
                                                   {"k", "3", "", "x-attempt"},
                                                   {"k", "2", "", "x-stainless-retry-count"}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    const auto& row = rows[i + 1];
    CHECK(std::vector<std::string>{row[1], row[3], row[4], row[5]} == want[i]);
  }
}

TEST_CASE("provider: a bearer token's trailing OWS is not part of the tenant") {
  RecordingProvider p({"--allowance", "1/min", "--tenant-header", "Authorization"});
  REQUIRE(p.started());
  CHECK(http(p.data_port(), "GET", "/", {{"Authorization", "Bearer sk-a"}}).status == 200);
  // The same key: its allowance is used up.
  CHECK(http(p.data_port(), "GET", "/", {{"Authorization", "Bearer sk-a \t"}}).status == 429);
  const auto tenants = p.stats().at("tenants");
  CHECK(tenants.size() == 1);
  CHECK(tenants.contains("sk-a"));
  CHECK(p.stop() == 0);
}
