// The proxy in front of nginx: a fleet's herd is the provider's whether or not it forwards, and
// an https upstream is reached with the trust it was given.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/nginx.hpp"

using namespace support;
using nlohmann::json;

namespace {

// A lockstep storm: exponential backoff without jitter, every wave a whole number of seconds
// after the last, so each second's arrivals and each send's are the same on every run. In
// real time: a wave a loaded machine (a sanitizer build) delays by tens of ms still lands in
// its second, where at --time-scale 0.1 it would slip by tenths of one.
const std::vector<std::string> kStorm = {"--allowance", "10/s", "--outage", "0s-1s:503"};

json herd_through(const std::vector<std::string>& provider_flags) {
  FakeProvider p(with(provider_flags, kStorm));
  REQUIRE(p.started());
  const auto r = run_loadgen(
      with({"--url", p.url(), "--provider-admin", p.admin(), "--clients", "30", "--strategy",
            "exponential", "--base", "1s", "--cap", "2s", "--max-attempts", "12"},
           kStorm));
  INFO(r.err);
  CHECK(r.code == 0);
  const json stats = p.stats();
  return {{"by_outcome", stats["arrivals_by_outcome"]},
          {"by_send", stats["arrivals_by_send"]},
          {"requests", stats["requests"]},
          {"upstream", stats["upstream"]},
          {"results_upstream", r.results["provider"]["upstream"]}};
}

}  // namespace

TEST_CASE("the herd is the same through the proxy: arrivals by second and by send" *
          doctest::test_suite("alone")) {
  const auto nginx = start_nginx();
  if (!nginx) return;
  const json plain = herd_through({});
  const json proxied = herd_through({"--upstream", nginx->http_url("")});
  CHECK(plain["requests"].get<std::int64_t>() > 60);  // a storm, not one wave
  CHECK(proxied["by_send"] == plain["by_send"]);
  CHECK(proxied["by_outcome"] == plain["by_outcome"]);
  CHECK(proxied["upstream"]["upstream_error"] == 0);
  // The run's results carry the provider's count of the upstream's own answers.
  CHECK(proxied["results_upstream"] == proxied["upstream"]);
  // Every request the provider admitted reached nginx, and only those.
  const auto log = nginx->stop_and_read_log();
  CHECK(static_cast<std::int64_t>(log.size()) == count_status(log, 200));
  std::int64_t admitted = 0;
  const auto& labels = proxied["by_outcome"]["labels"];
  const auto ok = std::find(labels.begin(), labels.end(), "ok") - labels.begin();
  for (const auto& bin : proxied["by_outcome"]["counts"]) admitted += bin[ok].get<std::int64_t>();
  CHECK(count_status(log, 200) == admitted);
}

TEST_CASE(
    "an https upstream: trusted with --upstream-cacert, refused without, or --upstream-insecure") {
  const auto nginx = start_nginx({.http = false, .https = true});
  if (!nginx) return;
  const std::string url = nginx->https_url("");
  std::size_t reached = 0;  // the requests nginx must have served
  SUBCASE("its CA given: the answer comes through") {
    FakeProvider p({"--upstream", url, "--upstream-cacert", nginx->pki().ca_cert()});
    REQUIRE(p.started());
    const auto r = http(p.data_port(), "GET", "/v1/x");
    CHECK(r.status == 200);
    CHECK(r.body.rfind("ok", 0) == 0);  // nginx's own answer
    reached = 1;
  }
  SUBCASE("not given: 502, naming the certificate") {
    FakeProvider p({"--upstream", url});
    REQUIRE(p.started());
    const auto r = http(p.data_port(), "GET", "/v1/x");
    CHECK(r.status == 502);
    CHECK(r.body.find("certificate") != std::string::npos);
  }
  SUBCASE("--upstream-insecure: through, unverified") {
    FakeProvider p({"--upstream", url, "--upstream-insecure"});
    REQUIRE(p.started());
    CHECK(http(p.data_port(), "GET", "/v1/x").status == 200);
    reached = 1;
  }
  // A refused certificate ends the handshake: nginx logs no request for it.
  CHECK(nginx->stop_and_read_log().size() == reached);
}
