// A summary that tells causes apart: in proxy mode, what the provider refused itself apart from
// what the upstream answered, and why items were dead-lettered, so a 404 behind the proxy
// never reads as the provider's doing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_summary.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/scripted_server.hpp"

using namespace support;
using stampede::format_by_model;
using stampede::format_who_answered;

TEST_CASE("summary causes: the provider's own refusals apart from the upstream's answers") {
  struct Row {
    const char* provider;  // the results' provider section
    std::string says;      // "" for no line
  };
  const std::vector<Row> rows{
      // Not proxy mode: the provider counted no upstream, or counts one it does not have.
      {R"({"reasons": {"served": 10, "outage": 2}})", ""},
      {R"({})", ""},
      {R"({"reasons": {"served": 10, "outage": 2}, "settings": {"proxy": false},
           "upstream": {"upstream_429": 0, "upstream_5xx": 0, "upstream_error": 0}})",
       ""},
      // Its settings not read: whether it forwarded is not known.
      {R"({"reasons": {"served": 10, "outage": 2},
           "upstream": {"upstream_429": 0, "upstream_5xx": 0, "upstream_error": 0}})",
       ""},
      {R"({"reasons": {"served": 40, "outage": 119, "request_rate_exceeded": 3},
           "settings": {"proxy": true},
           "upstream": {"upstream_429": 0, "upstream_5xx": 1, "upstream_error": 2}})",
       "who answered: the provider itself 119 outage, 3 request rate exceeded; it forwarded 40 "
       "to the upstream, which answered 0 with a 429, 1 with a 5xx and 2 not at all (an error or "
       "a timeout); any other status above is the upstream's, passed through\n"},
      {R"({"reasons": {"served": 5, "outage": 0}, "settings": {"proxy": true},
           "upstream": {"upstream_429": 5, "upstream_5xx": 0, "upstream_error": 0}})",
       "who answered: the provider itself refused none; it forwarded 5 to the upstream, which "
       "answered 5 with a 429, "},
  };
  for (const auto& row : rows) {
    CAPTURE(row.provider);
    const auto text = format_who_answered(nlohmann::json::parse(row.provider));
    if (row.says.empty()) {
      CHECK(text.empty());
    } else {
      CHECK(text.rfind(row.says, 0) == 0);
    }
  }
}

TEST_CASE("summary causes: the provider's counts by model, refusals named") {
  CHECK(format_by_model(nlohmann::json::parse(R"({"reasons": {"served": 3}})")).empty());
  CHECK(format_by_model(nlohmann::json::parse(R"({"models": {}})")).empty());
  CHECK(format_by_model(nlohmann::json::parse(R"({"models": {
          "big": {"requests": 2, "reasons": {"served": 2, "outage": 0}},
          "small": {"requests": 2, "reasons": {"served": 1, "request_rate_exceeded": 1}},
          "other": {"reasons": {}}}})")) ==
        "provider by model: big 2 served of 2; other 0 served of ?; small 1 served of 2 (1 "
        "request rate exceeded)\n");
}

TEST_CASE("summary causes: a run through the proxy to an upstream answering 404 says whose") {
  ScriptedServer upstream({{"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"}});
  FakeProvider p({"--upstream", "http://127.0.0.1:" + std::to_string(upstream.port())});
  REQUIRE(p.started());
  const auto r = run_binary("loadgen", {"run", "--url", p.url(), "--clients", "4",
                                        "--provider-admin", p.admin(), "--no-report"});
  CAPTURE(r.out);
  CAPTURE(r.err);
  CHECK(r.code == 1);  // nothing delivered
  CHECK(contains(r.out, "dead-lettered 4 (4 not retryable)"));
  CHECK(contains(r.out,
                 "who answered: the provider itself refused none; it forwarded 4 to "
                 "the upstream"));
}
