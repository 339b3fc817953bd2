// The live dashboard in a real browser (headless Chromium and Firefox), during a real run of
// loadgen against a real fakeprovider: the page's stream, its charts growing, its end.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "browser_support.hpp"
#include "report_test_support.hpp"
#include "support/fake_provider.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace report_test;
using namespace support;

namespace {

// What a reading of the page holds: the total, the drawn bars, the limit line, the shading,
// and what the page says of its stream; then whatever `more` fields the caller reads.
std::string reading_of(const std::string& more = "") {
  return "JSON.stringify({"
         "requests: Number(document.getElementById('requests').textContent.replace(/,/g, '')),"
         "bars: document.querySelectorAll('#arrivals-chart g.bars rect').length,"
         "waves: document.querySelectorAll('#waves-chart g.bars rect').length,"
         "allowance: document.querySelectorAll('#arrivals-chart g.limit').length,"
         "outages: document.querySelectorAll('#arrivals-chart g.outages rect').length,"
         "rate_now: document.getElementById('rate-now') !== null,"
         "status: document.getElementById('status').textContent" +
         more + "})";
}

// The fleet's page (loadgen run) adds its items, its wake lateness and the provider's view.
constexpr const char* kFleetFields =
    ",lateness: document.getElementById('lateness-p99').textContent,"
    "delivered: document.getElementById('delivered') !== null,"
    "in_flight: document.getElementById('in-flight') !== null,"
    "provider_shown: !document.getElementById('provider-view').hidden,"
    "provider_bars: document.querySelectorAll('#provider-arrivals-chart g.bars rect').length,"
    "provider_waves: document.querySelectorAll('#provider-waves-chart g.bars rect').length";

// The page has drawn an event with some requests in it.
constexpr const char* kSomeRequests =
    "until:document.getElementById('requests') && "
    "Number(document.getElementById('requests').textContent.replace(/,/g, '')) > 0";
constexpr const char* kStreamEnded =
    "until:document.getElementById('status').classList.contains('ended')";

// Which browser reads the page, and the script that drives it.
enum class Browser { kChromium, kFirefox };

// Readings of the page at url while it streams (cdp_readings.py or marionette_readings.py, in
// the background): one once it shows some requests, one four seconds later, a screenshot, and
// one once the page says its stream ended, which the test brings about.
class DashboardReader {
 public:
  DashboardReader(const TempDir& dir, const std::string& url,
                  const std::string& reading = reading_of(), Browser browser = Browser::kChromium)
      : png_(dir.file("dashboard.png")),
        reader_(
            find_program("python3"),
            {source_path(browser == Browser::kChromium ? "tests/report/cdp_readings.py"
                                                       : "tests/report/marionette_readings.py"),
             browser == Browser::kChromium ? chromium() : firefox(), dir.file("dashboard-profile"),
             "1280", "1000", url, png_, reading, kSomeRequests, "4", "shot", kStreamEnded},
            dir, "reader") {}

  // What the reader said on stderr: why it failed, if it did.
  std::string said() const { return reader_.err(); }
  // Once the screenshot is taken (mid-storm: the test then ends the stream); false if the
  // reader failed first.
  bool shot() {
    for (int i = 0; i < 3000 && reader_.running(); ++i) {
      if (reader_.err().find("done: shot") != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return reader_.err().find("done: shot") != std::string::npos;
  }
  // The readings, once the page has seen its stream end.
  nlohmann::json readings() {
    const int code = reader_.wait(300'000);
    REQUIRE_MESSAGE(code == 0, reader_.err());
    return nlohmann::json::parse(reader_.out());
  }
  const std::string& png() const { return png_; }

 private:
  std::string png_;
  Process reader_;
};

// What the page showed: a total and bars that grew, sends by send number, the allowance and
// an outage, its end.
void check_dashboard(const nlohmann::json& r) {
  CAPTURE(r.dump());
  REQUIRE(r.size() == 3);
  CHECK(r[0]["requests"].get<int>() > 0);
  CHECK(r[1]["requests"].get<int>() > r[0]["requests"].get<int>());
  CHECK(r[1]["bars"].get<int>() > r[0]["bars"].get<int>());
  CHECK(r[1]["waves"].get<int>() > r[0]["waves"].get<int>());
  CHECK(r[1]["allowance"] == 1);
  CHECK(r[1]["outages"].get<int>() >= 1);
  // In plain words: when the picture was taken, not an event's number; the rate now.
  CHECK(r[1]["status"].get<std::string>().starts_with("live: updated "));
  CHECK(r[1]["status"].get<std::string>().find(" s after the start") != std::string::npos);
  CHECK(r[1]["rate_now"] == true);
  // Ended, and the last picture kept.
  CHECK(r[2]["status"].get<std::string>().find("the stream has ended") != std::string::npos);
  CHECK(r[2]["requests"].get<int>() >= r[1]["requests"].get<int>());
  CHECK(r[2]["bars"].get<int>() >= r[1]["bars"].get<int>());
}

// What only the fleet's page shows: its items, its wake lateness so far, and the provider's
// view beside it (--provider-admin), whose bars grew too.
void check_fleet_sections(const nlohmann::json& r) {
  CAPTURE(r.dump());
  REQUIRE(r.size() == 3);
  CHECK(r[1]["delivered"] == true);
  CHECK(r[1]["in_flight"] == true);
  CHECK(r[1]["lateness"].get<std::string>().ends_with(" ms"));
  CHECK(r[1]["provider_shown"] == true);
  CHECK(r[1]["provider_bars"].get<int>() > r[0]["provider_bars"].get<int>());
  CHECK(r[1]["provider_waves"].get<int>() > 0);
}

// The picture: admitted (green) and refused (amber) bars. With the environment variable keep
// set, the picture is copied there (make dashboard-png).
void check_screenshot(const std::string& png, const char* keep_env) {
  const auto s = png_stats(png, {"#2e9e5b", "#f2a93b"});
  CAPTURE(s.dump());
  CHECK(s["colors"]["#2e9e5b"]["count"].get<int>() > 100);
  CHECK(s["colors"]["#f2a93b"]["count"].get<int>() > 100);
  if (const char* keep = keep_env ? std::getenv(keep_env) : nullptr) {
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
  }
}

}  // namespace

// A steady stream of items over the allowance, retried: 429s, an outage at 3-5 s, waves of
// retries; long enough for any machine to load the page meanwhile, and ended (SIGINT) once
// the page is read and shot.
const std::vector<std::string> kSteadyStorm{
    "--allowance",    "20/s",        "--outage",   "3s-5s:503",  "--workload", "steady",
    "--rate",         "40/s",        "--duration", "120s",       "--clients",  "200",
    "--strategy",     "exponential", "--base",     "500ms",      "--cap",      "2s",
    "--max-attempts", "4",           "--quiet",    "--no-report"};

// loadgen run of kSteadyStorm against the provider, with more flags.
std::unique_ptr<Process> steady_storm(const TempDir& dir, const FakeProvider& provider,
                                      const std::vector<std::string>& more) {
  auto run = std::make_unique<Process>(
      kLoadgenBin,
      with(with({"run", "--url", provider.url(), "--provider-admin", provider.admin()}, more),
           kSteadyStorm),
      dir, "loadgen");
  REQUIRE(run->started());
  return run;
}

// Reads the page while `load` runs, then stops it with SIGINT, which ends the stream (or lets
// the caller end it), and checks what the page showed.
void read_then_stop(DashboardReader& reader, Process& load) {
  REQUIRE_MESSAGE(reader.shot(), reader.said());
  load.signal(SIGINT);
  CHECK(load.wait() >= 0);  // it stopped itself, gracefully
}

// fakeprovider's own page, its token once in the address, read in `browser` during a run.
void watch_provider_dashboard(Browser browser, const char* keep_env) {
  TempDir dir;
  FakeProvider provider(
      {"--allowance", "20/s", "--outage", "3s-5s:503", "--admin-token", "s3cret"});
  REQUIRE(provider.started());
  const auto run = steady_storm(dir, provider, {"--provider-admin-token", "s3cret"});
  DashboardReader reader(dir, provider.admin() + "/dashboard?token=s3cret", reading_of(), browser);
  read_then_stop(reader, *run);
  CHECK(provider.stop() == 0);
  check_dashboard(reader.readings());
  check_screenshot(reader.png(), keep_env);
}

TEST_CASE("a real browser watches fakeprovider's /dashboard during a live run" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing())) * doctest::test_suite("browser")) {
  watch_provider_dashboard(Browser::kChromium, "STAMPEDE_DASHBOARD_PNG");
}

// The dashboard's URL, which loadgen says on stderr before any load.
std::string fleet_dashboard_url(Process& loadgen) {
  const auto url = dashboard_url(loadgen);
  REQUIRE(url.starts_with("http://127.0.0.1:"));
  REQUIRE(url.ends_with("/dashboard"));
  return url;
}

// loadgen run's page, the provider's view beside the fleet's, read in `browser` during the run.
void watch_fleet_dashboard(Browser browser, const char* keep_env) {
  TempDir dir;
  FakeProvider provider({"--allowance", "20/s", "--outage", "3s-5s:503"});
  REQUIRE(provider.started());
  const auto run = steady_storm(dir, provider, {"--dashboard", "127.0.0.1:0"});
  DashboardReader reader(dir, fleet_dashboard_url(*run), reading_of(kFleetFields), browser);
  read_then_stop(reader, *run);  // the run's end ends the stream
  const auto readings = reader.readings();
  check_dashboard(readings);
  check_fleet_sections(readings);
  check_screenshot(reader.png(), keep_env);
}

TEST_CASE("a real browser watches loadgen run --dashboard, the fleet's view, during the run" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing())) * doctest::test_suite("browser")) {
  watch_fleet_dashboard(Browser::kChromium, "STAMPEDE_FLEET_DASHBOARD_PNG");
}

// The same page in the other browser the issue names: both its views, one after the other.
TEST_CASE("Firefox watches the live dashboards, fakeprovider's and loadgen run's, during runs" *
          doctest::description("needs the Debian package firefox-esr, and python3") *
          doctest::skip(skip_unless_ci(firefox_missing())) * doctest::test_suite("browser")) {
  watch_provider_dashboard(Browser::kFirefox, nullptr);
  watch_fleet_dashboard(Browser::kFirefox, nullptr);
}

TEST_CASE("a real browser watches loadgen exec --dashboard: the provider's view of the fleet" *
          doctest::description("needs the Debian package chromium, python3 and curl") *
          doctest::skip(skip_unless_ci(browser_missing() || find_program("curl").empty())) *
          doctest::test_suite("browser")) {
  TempDir dir;
  FakeProvider provider({"--allowance", "20/s", "--outage", "3s-5s:503"});
  REQUIRE(provider.started());
  // Ten processes, each a curl every 0.25 s (for 100 s at most): 40/s against 20/s, numbered
  // first sends, through the outage.
  Process exec(kLoadgenBin,
               {"exec",
                "--clients",
                "10",
                "--allowance",
                "20/s",
                "--outage",
                "3s-5s:503",
                "--url",
                provider.url(),
                "--provider-admin",
                provider.admin(),
                "--quiet",
                "--no-report",
                "--dashboard",
                "127.0.0.1:0",
                "--",
                "sh",
                "-c",
                "i=0; while [ $i -lt 400 ]; do curl -s -o /dev/null -H 'X-Attempt: 1' \"$0\"; "
                "i=$((i+1)); sleep 0.25; done",
                "{url}"},
               dir, "loadgen");
  REQUIRE(exec.started());
  DashboardReader reader(dir, fleet_dashboard_url(exec));
  read_then_stop(reader, exec);
  check_dashboard(reader.readings());
  check_screenshot(reader.png(), "STAMPEDE_EXEC_DASHBOARD_PNG");
}
