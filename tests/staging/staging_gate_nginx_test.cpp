// The gate of a staging run against nginx on loopback as the stand-in staging API (issue 16's
// acceptance): a fleet that failed never exits 0, the JUnit file says what the exit code says,
// and peak_retry_ratio ranks full jitter above exponential backoff with no outage, as
// peak_ratio could not. tests/live/staging_gate_test.cpp checks the same gate against servers
// of its own and fakeprovider; these are the same promises against a server that is neither.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/nginx.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using nlohmann::json;
using support::contains;
using support::count_status;
using support::lines;
using support::NginxStaging;
using support::run_loadgen;
using support::SilentListener;
using support::start_nginx;
using support::TempDir;
using support::with;

namespace {

struct JunitRun {
  support::Run run;
  std::string junit;
};

JunitRun run_with_junit(const std::vector<std::string>& args) {
  TempDir dir;
  JunitRun r{run_loadgen(with(args, {"--junit", dir.file("junit.xml")})), {}};
  r.junit = support::read_file(dir.file("junit.xml"));
  return r;
}

// What the JUnit file says of the case named `name` (escaped as in the XML): "passed", the
// text of its failure or error element, or "" when there is no such case.
std::string junit_case(const std::string& xml, const std::string& name) {
  const std::string tag = " name=\"" + name + "\"";
  const auto at = xml.find(tag);
  if (at == std::string::npos) return "";
  const auto after = at + tag.size();
  if (xml.compare(after, 2, "/>") == 0) return "passed";
  const auto end = xml.find("</testcase>", after);
  return xml.substr(after, end == std::string::npos ? std::string::npos : end - after);
}

}  // namespace

TEST_CASE("nginx: a target that accepts and never answers exits 1, saying it never answered") {
  const SilentListener upstream;
  REQUIRE(upstream.port() > 0);
  const auto started = start_nginx({.silent_upstream_port = upstream.port()});
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto r = run_with_junit({"--url", nginx.http_url(NginxStaging::kSilentPath), "--clients",
                                 "5", "--timeout", "300ms", "--max-attempts", "1", "--strategy",
                                 "fixed", "--base", "100ms", "--max-duration", "20s"});
  INFO("stderr: " << r.run.err);
  CHECK(r.run.code == 1);
  const auto lines = support::lines(r.run.err);
  REQUIRE(lines.size() == 1);
  CHECK(contains(lines[0],
                 "no item was delivered: the target never answered: of 10 requests, 10 timed out "
                 "and 0 were refused or reset"));
  REQUIRE(r.run.results.is_object());
  CHECK(r.run.results["summary"]["status_ratio_timeout"] == 1.0);
  CHECK(contains(junit_case(r.junit, "delivered &gt; 0"), "the target never answered"));
  // nginx waited on its upstream for each, until the client gave up: 499, client closed.
  CHECK(count_status(nginx.stop_and_read_log(), 499) == 10);
}

TEST_CASE("nginx: peak_ratio with no allowance declared is exit 2 before any load") {
  const auto started = start_nginx({.limit_rate = "20r/s"});
  if (!started) return;
  NginxStaging& nginx = *started;
  for (const char* check : {"peak_ratio <= 2", "peak_retry_ratio <= 2"}) {
    CAPTURE(check);
    const auto r = run_with_junit({"--url", nginx.http_url(), "--assert", check});
    INFO("stderr: " << r.run.err);
    CHECK(r.run.code == 2);
    const auto lines = support::lines(r.run.err);
    REQUIRE(lines.size() == 1);
    const std::string metric = std::string(check).substr(0, std::string(check).find(' '));
    CHECK(contains(lines[0], "loadgen: assertion '" + std::string(check) + "': " + metric +
                                 " is measured against the provider's allowance, and none is "
                                 "declared"));
    CHECK(contains(lines[0], "--allowance"));
    CHECK(r.run.results.is_null());
  }
  CHECK(nginx.stop_and_read_log().empty());
}

TEST_CASE("nginx: a run stopped by --max-duration is a failing JUnit case, exit 1") {
  // 2 requests a second for 20 clients that retry every 100 ms: far from done in a second.
  const auto started = start_nginx({.limit_rate = "2r/s"});
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto r =
      run_with_junit({"--url", nginx.http_url(), "--clients", "20", "--strategy", "fixed", "--base",
                      "100ms", "--retry-after", "ignore", "--max-attempts", "0", "--max-duration",
                      "1s", "--grace", "200ms"});
  INFO("stderr: " << r.run.err);
  CHECK(r.run.code == 1);
  CHECK(contains(r.run.err, "loadgen: stopped by --max-duration 1s after "));
  REQUIRE(r.run.results.is_object());
  const auto unfinished = r.run.results["counts"]["unfinished"].get<std::int64_t>();
  CHECK(unfinished > 0);
  CHECK(contains(r.junit, "failures=\"1\" errors=\"0\""));
  const auto run_case = junit_case(r.junit, "run completed");
  CHECK(contains(run_case, "<failure message=\"stopped by --max-duration 1s after "));
  CHECK(contains(run_case, "with " + std::to_string(unfinished) + " items unfinished"));
  // The items that got through did, and the gate's own check passed: only the stop failed.
  CHECK(junit_case(r.junit, "delivered &gt; 0") == "passed");
  CHECK(count_status(nginx.stop_and_read_log(), 429) > 0);
}

TEST_CASE(
    "nginx gone: exit 3, one line, and a JUnit file whose one case is the error (run, exec)") {
  auto started = start_nginx();
  if (!started) return;
  const std::string url = started->http_url();
  // Staging was there, and now is not: nothing listens on its port, held so that no other
  // test's server is given it.
  const int port = started->http_port();
  started->stop_and_read_log();
  started.reset();
  const support::RefusedPort gone(port);
  REQUIRE_MESSAGE(gone.port() == port, "another process took nginx's port as it stopped");
  const auto r = run_with_junit({"--url", url, "--clients", "3", "--assert", "requests < 10"});
  INFO("stderr: " << r.run.err);
  CHECK(r.run.code == 3);
  const auto lines = support::lines(r.run.err);
  REQUIRE(lines.size() == 1);
  CHECK(contains(lines[0], "loadgen: target unreachable: cannot connect to"));
  CHECK(r.run.results.is_null());
  CHECK(contains(r.junit, "tests=\"1\" failures=\"0\" errors=\"1\""));
  CHECK(contains(junit_case(r.junit, "run completed"),
                 "<error message=\"target unreachable: cannot connect to"));

  // loadgen exec says the same of a fleet it cannot point anywhere.
  support::FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  support::Process exec(support::bin_path("loadgen"),
                        {"exec", "--clients", "2", "--url", url, "--provider-admin",
                         provider.admin(), "--junit", dir.file("junit.xml"), "--", "/bin/true"},
                        dir, "exec");
  CHECK(exec.wait(60'000) == 3);
  INFO("exec stderr: " << exec.err());
  // The same line as run's, up to libcurl's reason, which names the milliseconds it took.
  const auto exec_lines = support::lines(exec.err());
  REQUIRE(exec_lines.size() == 2);
  CHECK(exec_lines[0].starts_with("loadgen: target unreachable: cannot connect to " + url + ": "));
  CHECK(exec_lines[1] == "loadgen: wrote the JUnit XML to " + dir.file("junit.xml"));
  const auto junit = support::read_file(dir.file("junit.xml"));
  CHECK(contains(junit, "tests=\"1\" failures=\"0\" errors=\"1\""));
  CHECK(contains(junit_case(junit, "run completed"), "<error message=\"target unreachable: "));
}

TEST_CASE("nginx, no outage: peak_retry_ratio ranks full jitter below exponential backoff") {
  // limit_req at 10/s with no burst admits one request per 100 ms and refuses the rest. 50
  // clients at t=0: exponential backoff (base 500 ms) sends the 49 refused back together at
  // t=0.5 s, and the 48 refused then together at t=1.5 s: a herd of 48 in second 1. Full
  // jitter spreads the same retries over [0, 0.5) and [0, 1) s after each refusal: a few per
  // second. Retry-After is ignored: nginx hands everyone the same 1 s, a herd of its own.
  const auto started = start_nginx({.limit_rate = "10r/s"});
  if (!started) return;
  NginxStaging& nginx = *started;
  std::map<std::string, json> summary;
  for (const char* strategy : {"exponential", "full-jitter"}) {
    CAPTURE(strategy);
    const auto r =
        run_loadgen({"--url", nginx.http_url(), "--clients", "50", "--allowance", "10/s",
                     "--strategy", strategy, "--base", "500ms", "--cap", "2s", "--max-attempts",
                     "2", "--retry-after", "ignore", "--expect-none", "--max-duration", "20s"});
    INFO("stderr: " << r.err);
    CHECK(r.code == 0);
    REQUIRE(r.results.is_object());
    summary[strategy] = r.results["summary"];
  }
  INFO("exponential: " << summary["exponential"].dump());
  INFO("full jitter: " << summary["full-jitter"].dump());
  // The herd of 48, unless a late wake split it over two seconds; full jitter's busiest
  // second would need over half its retries in one second to come near it.
  CHECK(summary["exponential"]["peak_retries"].get<double>() >= 40);
  CHECK(summary["exponential"]["peak_retry_second"] == 1.0);
  CHECK(summary["full-jitter"]["peak_retry_ratio"].get<double>() * 2 <
        summary["exponential"]["peak_retry_ratio"].get<double>());
  // peak_ratio, which counts the first wave, cannot tell them apart: both see all 50 at t=0.
  CHECK(summary["exponential"]["peak_second"] == summary["full-jitter"]["peak_second"]);
}

TEST_CASE("nginx: examples/ci/staging.json fails without jitter and passes with full jitter") {
  // The example as a team copies it, against nginx's limit_req holding its allowance as a
  // provider that enforces 4000/min a second at a time would: about 67 a second, 66 at once.
  // On the wall's clock (about ten seconds a run): on a scaled one the harness's CPU wait on a
  // loaded machine bunches the jittered retries as no fleet would.
  const auto started = start_nginx({.limit_rate = "4000r/m", .burst = 65});
  if (!started) return;
  NginxStaging& nginx = *started;
  std::map<std::string, support::Run> runs;
  for (const char* strategy : {"exponential", "full-jitter"}) {
    CAPTURE(strategy);
    runs[strategy] = run_loadgen({"--scenario", support::source_path("examples/ci/staging.json"),
                                  "--url", nginx.http_url("/v1/messages"), "--strategy", strategy});
  }
  const auto& lockstep = runs["exponential"];
  const auto& jittered = runs["full-jitter"];
  INFO("exponential stderr: " << lockstep.err);
  INFO("full-jitter stderr: " << jittered.err);
  REQUIRE(lockstep.results.is_object());
  REQUIRE(jittered.results.is_object());
  INFO("exponential: " << lockstep.results["summary"].dump());
  INFO("full jitter: " << jittered.results["summary"].dump());
  // Over the limit, so the retry gate means something: most of the fleet was refused once.
  for (const auto* r : {&lockstep, &jittered}) {
    CHECK(r->results["summary"]["retry_share"].get<double>() > 0.3);
    CHECK(r->results["summary"]["status_ratio_429"].get<double>() > 0.3);
  }
  CHECK(lockstep.code == 1);
  // Failed by its retry gate: the herd of the refused, back together a second later.
  bool retry_gate_failed = false;
  for (const auto& a : lockstep.results["assertions"]) {
    if (a["assertion"].get<std::string>().starts_with("peak_retry_ratio"))
      retry_gate_failed = !a["passed"].get<bool>();
  }
  CHECK(retry_gate_failed);
  CHECK(jittered.code == 0);
  CHECK(jittered.results["counts"]["delivered"] == jittered.results["counts"]["items"]);
  CHECK(count_status(nginx.stop_and_read_log(), 429) > 0);
}
