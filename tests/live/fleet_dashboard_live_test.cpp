// loadgen run/exec --dashboard against a real fakeprovider: the fleet's events carry its
// sends by send number, its wake lateness and the provider's view beside them, and the page's
// "save" answers the report `loadgen report` makes, during the run.
#include <doctest/doctest.h>

#include <signal.h>

#include <string>
#include <vector>

#include "support/event_stream.hpp"
#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

using namespace support;

namespace {

// Sends past the first, over every bin of a send-number histogram.
std::int64_t retries_in(const nlohmann::json& by_send) {
  std::int64_t n = 0;
  for (const auto& row : by_send.at("counts")) {
    for (std::size_t label = 1; label < row.size(); ++label) n += row[label].get<std::int64_t>();
  }
  return n;
}

// The first event (of at most `events`) for which `good` holds.
std::optional<nlohmann::json> event_where(EventStream& stream, int events,
                                          const std::function<bool(const nlohmann::json&)>& good) {
  for (int i = 0; i < events; ++i) {
    const auto e = stream.next();
    if (!e) return std::nullopt;
    if (good(*e)) return e;
  }
  return std::nullopt;
}

// The port of the dashboard a running loadgen says it serves.
int dashboard_port_of(Process& loadgen) {
  const auto url = dashboard_url(loadgen);
  REQUIRE_MESSAGE(url.starts_with("http://127.0.0.1:"), loadgen.err());
  return dashboard_port(url);
}

// A page's save: the report, a file to keep, with its charts and no script of its own.
void check_saved_report(int port, const std::string& filename) {
  const auto report = http(port, "GET", "/dashboard/report");
  REQUIRE(report.status == 200);
  CHECK(report.header("content-disposition") == "attachment; filename=\"" + filename + "\"");
  CHECK(report.header("content-type").starts_with("text/html"));
  CHECK(report.body.find("<svg") != std::string::npos);
  CHECK(report.body.find("per second, by outcome") != std::string::npos);
  CHECK(report.body.find("<script") == std::string::npos);
}

}  // namespace

TEST_CASE("loadgen run --dashboard: retries by send, wake lateness, the provider's view, save") {
  TempDir dir;
  FakeProvider provider({"--allowance", "10/s"});
  REQUIRE(provider.started());
  // 30 items a second against 10/s, retried: 429s and retries from the first seconds on.
  Process run(kLoadgenBin,
              {"run",
               "--url",
               provider.url(),
               "--provider-admin",
               provider.admin(),
               "--allowance",
               "10/s",
               "--workload",
               "steady",
               "--rate",
               "30/s",
               "--duration",
               "60s",
               "--clients",
               "100",
               "--strategy",
               "exponential",
               "--base",
               "300ms",
               "--cap",
               "1s",
               "--max-attempts",
               "4",
               "--quiet",
               "--no-report",
               "--dashboard",
               "127.0.0.1:0"},
              dir, "loadgen", kNoProxyForLoopback);
  REQUIRE(run.started());
  const int port = dashboard_port_of(run);

  const auto page = http(port, "GET", "/dashboard");
  REQUIRE(page.status == 200);
  for (const char* id : {"id=\"waves-chart\"", "id=\"lateness-p99\"",
                         "id=\"provider-arrivals-chart\"", "href=\"/dashboard/report\""})
    CHECK(page.body.find(id) != std::string::npos);

  EventStream stream(port, "/live");
  REQUIRE(stream.head().status == 200);
  // Bounded by events, not by time: a minute of them at most.
  const auto e = event_where(stream, 60, [](const nlohmann::json& event) {
    const auto& p = event.at("provider");
    return retries_in(event.at("arrivals_by_send")) > 0 && event.at("lateness").at("sends") > 0 &&
           p.is_object() && p.contains("requests") && p.at("requests") > 0 &&
           retries_in(p.at("arrivals_by_send")) > 0;
  });
  REQUIRE(e);
  CAPTURE(e->dump());
  CHECK(e->at("arrivals_by_send").at("labels").at(1) == "2");
  const auto& late = e->at("lateness");
  CHECK(late.at("p50_ms").get<double>() <= late.at("p99_ms").get<double>());
  CHECK(late.at("p99_ms").get<double>() <= late.at("max_ms").get<double>());
  for (const char* item : {"delivered", "dead_lettered", "in_backoff", "in_flight"})
    CHECK(e->at("fleet").contains(item));
  // The provider saw the fleet's sends: no fewer than the clients had answered when it was read.
  CHECK(e->at("provider").at("refused").get<int>() > 0);

  check_saved_report(port, "loadgen-run-report.html");
  run.signal(SIGINT);
  CHECK(run.wait() >= 0);
}

TEST_CASE("loadgen exec --dashboard: save answers the report of the provider's results so far" *
          doctest::skip(find_program("curl").empty())) {
  TempDir dir;
  FakeProvider provider({"--allowance", "20/s"});
  REQUIRE(provider.started());
  Process exec(
      kLoadgenBin,
      {"exec", "--clients", "2", "--url", provider.url(), "--provider-admin", provider.admin(),
       "--quiet", "--no-report", "--dashboard", "127.0.0.1:0", "--", "sh", "-c",
       "i=0; while [ $i -lt 400 ]; do curl -s -o /dev/null -H 'X-Attempt: 1' \"$0\"; "
       "i=$((i+1)); sleep 0.25; done",
       "{url}"},
      dir, "loadgen", kNoProxyForLoopback);
  REQUIRE(exec.started());
  const int port = dashboard_port_of(exec);
  EventStream stream(port, "/live");
  REQUIRE(stream.head().status == 200);
  REQUIRE(event_where(stream, 60, [](const nlohmann::json& e) { return e.at("requests") > 0; }));
  check_saved_report(port, "loadgen-exec-report.html");
  exec.signal(SIGINT);
  CHECK(exec.wait() >= 0);
}
