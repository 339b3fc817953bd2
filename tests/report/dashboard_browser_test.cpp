// The live dashboard in a real browser (headless Chromium), during a real run of loadgen
// against a real fakeprovider: the page's stream, its charts growing, its end.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "browser_support.hpp"
#include "report_test_support.hpp"
#include "support/fake_provider.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace report_test;
using namespace support;

namespace {

// What a reading of the page holds: the total, the drawn bars, the limit line, the shading,
// and what the page says of its stream.
constexpr const char* kDashboardReading =
    "JSON.stringify({"
    "requests: Number(document.getElementById('requests').textContent.replace(/,/g, '')),"
    "bars: document.querySelectorAll('#arrivals-chart g.bars rect').length,"
    "waves: document.querySelectorAll('#waves-chart g.bars rect').length,"
    "allowance: document.querySelectorAll('#arrivals-chart g.limit').length,"
    "outages: document.querySelectorAll('#arrivals-chart g.outages rect').length,"
    "status: document.getElementById('status').textContent})";

constexpr const char* kStreamEnded =
    "until:document.getElementById('status').classList.contains('ended')";

// Readings of the page at url while it streams (cdp_readings.py, in the background): two a
// few seconds apart, a screenshot, and one once the page says its stream ended, which the
// test brings about with stop().
class DashboardReader {
 public:
  DashboardReader(const TempDir& dir, const std::string& url)
      : png_(dir.file("dashboard.png")),
        reader_(
            find_program("python3"),
            {source_path("tests/report/cdp_readings.py"), chromium(), dir.file("dashboard-profile"),
             "1280", "1000", url, png_, kDashboardReading, "2", "6", "shot", kStreamEnded},
            dir, "cdp") {}

  // The readings, once the page has seen its stream end.
  nlohmann::json readings() {
    const int code = reader_.wait(150'000);
    REQUIRE_MESSAGE(code == 0, reader_.err());
    return nlohmann::json::parse(reader_.out());
  }
  const std::string& png() const { return png_; }

 private:
  std::string png_;
  Process reader_;
};

// What the page showed: a total and bars that grew, the allowance and an outage, its end. The
// fleet's page has no waves: the clients' sends by number are in the report.
void check_dashboard(const nlohmann::json& r, bool waves) {
  CAPTURE(r.dump());
  REQUIRE(r.size() == 3);
  CHECK(r[0]["requests"].get<int>() > 0);
  CHECK(r[1]["requests"].get<int>() > r[0]["requests"].get<int>());
  CHECK(r[1]["bars"].get<int>() > r[0]["bars"].get<int>());
  CHECK((r[1]["waves"].get<int>() > 0) == waves);
  CHECK(r[1]["allowance"] == 1);
  CHECK(r[1]["outages"].get<int>() >= 1);
  // Ended, and the last picture kept.
  CHECK(r[2]["status"].get<std::string>().find("the stream has ended") != std::string::npos);
  CHECK(r[2]["requests"].get<int>() >= r[1]["requests"].get<int>());
  CHECK(r[2]["bars"].get<int>() >= r[1]["bars"].get<int>());
}

// The picture: admitted (green) and refused (amber) bars. With the environment variable keep
// set, the picture is copied there (make dashboard-png).
void check_screenshot(const std::string& png, const char* keep_env) {
  const auto s = png_stats(png, {"#2e9e5b", "#f2a93b"});
  CAPTURE(s.dump());
  CHECK(s["colors"]["#2e9e5b"]["count"].get<int>() > 100);
  CHECK(s["colors"]["#f2a93b"]["count"].get<int>() > 100);
  if (const char* keep = std::getenv(keep_env)) {
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
  }
}

}  // namespace

TEST_CASE("a real browser watches fakeprovider's /dashboard during a live run" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing()))) {
  TempDir dir;
  FakeProvider provider(
      {"--allowance", "20/s", "--outage", "3s-5s:503", "--admin-token", "s3cret"});
  REQUIRE(provider.started());
  // A steady stream of items over the allowance, retried: 429s, an outage, waves of retries.
  Process run(kLoadgenBin,
              {"run",
               "--url",
               provider.url(),
               "--provider-admin",
               provider.admin(),
               "--provider-admin-token",
               "s3cret",
               "--allowance",
               "20/s",
               "--workload",
               "steady",
               "--rate",
               "40/s",
               "--duration",
               "10s",
               "--clients",
               "200",
               "--strategy",
               "exponential",
               "--base",
               "500ms",
               "--cap",
               "2s",
               "--max-attempts",
               "4",
               "--quiet",
               "--out",
               dir.file("run.json")},
              dir, "loadgen");
  REQUIRE(run.started());
  DashboardReader reader(dir, provider.admin() + "/dashboard?token=s3cret");
  CHECK(run.wait() == 0);
  CHECK(provider.stop() == 0);
  check_dashboard(reader.readings(), true);
  check_screenshot(reader.png(), "STAMPEDE_DASHBOARD_PNG");
}

TEST_CASE("a real browser watches loadgen run --dashboard, the fleet's view, during the run" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing()))) {
  TempDir dir;
  FakeProvider provider({"--allowance", "20/s", "--outage", "3s-5s:503"});
  REQUIRE(provider.started());
  Process run(kLoadgenBin,
              {"run",         "--url",       provider.url(), "--provider-admin", provider.admin(),
               "--allowance", "20/s",        "--outage",     "3s-5s:503",        "--workload",
               "steady",      "--rate",      "40/s",         "--duration",       "10s",
               "--clients",   "200",         "--strategy",   "exponential",      "--base",
               "500ms",       "--cap",       "2s",           "--max-attempts",   "4",
               "--quiet",     "--no-report", "--dashboard",  "127.0.0.1:0"},
              dir, "loadgen");
  REQUIRE(run.started());
  // Its URL, on stderr before any load (a safety bound, not a threshold).
  std::string url;
  for (int i = 0; i < 600 && url.empty() && run.running(); ++i) {
    const auto err = run.err();
    if (const auto at = err.find("loadgen: dashboard on "); at != std::string::npos) {
      url = err.substr(at + 22, err.find('\n', at) - at - 22);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(url.starts_with("http://127.0.0.1:"));
  REQUIRE(url.ends_with("/dashboard"));
  DashboardReader reader(dir, url);
  CHECK(run.wait() == 0);  // the run's end ends the stream
  check_dashboard(reader.readings(), false);
  check_screenshot(reader.png(), "STAMPEDE_FLEET_DASHBOARD_PNG");
}
