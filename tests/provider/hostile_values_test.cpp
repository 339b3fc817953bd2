// Values a client or an admin caller chose, replayed against the real binary: what the fuzzers
// in fuzz/ found or were built to find, where it shows only through the admin API's answers.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "provider_harness.hpp"
#include "utf8.hpp"

using namespace provider_test;

TEST_CASE("an admin outage as long as a duration can be ends at the end of time") {
  // fuzz_provider_request: start_outage added the duration to now and overflowed, so the
  // window ended before it began and the outage never applied.
  Provider p({"--allowance", "100/s"});
  REQUIRE(p.started());
  const auto r = http(p.admin_port(), "POST", "/admin/outage?for=9223372036854775799ns&status=503");
  REQUIRE(r.status == 200);
  const auto window = nlohmann::json::parse(r.body);
  CHECK(window.at("end_ns").get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  const auto answer = http(p.data_port(), "GET", "/");
  CHECK(answer.status == 503);
  CHECK(answer.header_int("retry-after") > 0);
  CHECK(admin_stats(p).at("totals").at("503") == 1);
  CHECK(p.stop() == 0);
}

TEST_CASE(
    "tenant values that are not UTF-8 or hold quotes come back escaped in stats and metrics") {
  Provider p({"--allowance", "100/s"});
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
