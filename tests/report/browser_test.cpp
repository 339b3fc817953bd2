#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "browser_support.hpp"
#include "html_report.hpp"
#include "report_test_support.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

using namespace stampede;
using namespace report_test;
using namespace support;

namespace {

constexpr int kWidth = 1280;
constexpr int kHeight = 2000;

// This machine's network is closed: nothing that phones home, and a fresh profile each time.
std::string chromium_command(const TempDir& dir, const std::string& profile) {
  return "timeout 90 " + quote(chromium()) +
         " --headless --no-sandbox --disable-gpu --disable-background-networking"
         " --disable-component-update --disable-sync --disable-quic --no-first-run"
         " --hide-scrollbars --user-data-dir=" +
         quote(dir.file(profile));
}

// The colours the charts fill with: ok, 429, 5xx, the first send, the axes.
const std::vector<std::string> kChartColors{"#2e9e5b", "#f2a93b", "#d64545", "#3b4cc0", "#3d4451"};

// Chromium's own screenshot, with the flags the issue names.
nlohmann::json screenshot(const TempDir& dir, const std::string& html) {
  const auto png = dir.file("with-js.png");
  const auto shot = run(chromium_command(dir, "with-js-profile") + " --screenshot=" + quote(png) +
                        " --window-size=" + std::to_string(kWidth) + "," + std::to_string(kHeight) +
                        " " + quote("file://" + html));
  REQUIRE_MESSAGE(shot.exit_code == 0, shot.output);
  REQUIRE_MESSAGE(std::filesystem::exists(png), shot.output);
  return png_stats(png, kChartColors);
}

// Chromium writes no --screenshot with scriptEnabled=false, so these go over the DevTools
// protocol, which can switch scripts off: first a probe page whose script would turn it red,
// to show scripts were off, then the report.
nlohmann::json screenshot_without_javascript(const TempDir& dir, const std::string& html) {
  const auto probe = dir.file("probe.html");
  write_file(probe,
             "<!DOCTYPE html><html><body style=\"margin:0\"><div id=\"d\" style=\"height:400px;"
             "background:#00ff00\"></div><script>document.getElementById('d').style.background="
             "'#ff0000'</script></body></html>");
  const auto shot =
      run("timeout 90 python3 " + quote(source_path("tests/report/cdp_screenshot.py")) + " " +
          quote(chromium()) + " " + quote(dir.file("without-js-profile")) + " " +
          std::to_string(kWidth) + " " + std::to_string(kHeight) + " off " +
          quote("file://" + probe + "=" + dir.file("probe.png")) + " " +
          quote("file://" + html + "=" + dir.file("without-js.png")));
  REQUIRE_MESSAGE(shot.exit_code == 0, shot.output);
  const auto probed = png_stats(dir.file("probe.png"), {"#00ff00", "#ff0000"});
  CHECK(probed["colors"]["#00ff00"]["count"].get<int>() > 100'000);
  CHECK(probed["colors"]["#ff0000"]["count"] == 0);
  return png_stats(dir.file("without-js.png"), kChartColors);
}

void check_picture(const nlohmann::json& s) {
  CAPTURE(s.dump());
  CHECK(s["width"] == kWidth);
  CHECK(s["height"] == kHeight);
  // A blank or unstyled page has a handful of colours; charts have thousands of shades.
  CHECK(s["distinct"].get<int>() > 300);
  for (const auto& c : kChartColors) {
    CAPTURE(c);
    const auto& found = s["colors"][c];
    CHECK(found["count"].get<int>() > 50);
    // Inside the viewport: nothing clipped at its right edge.
    CHECK(found["max_x"].get<int>() < kWidth - 8);
  }
  // The two runs side by side: the outage's 5xx in both panels, the lockstep waves' 429s.
  const auto& red = s["colors"]["#d64545"];
  CHECK(red["min_x"].get<int>() < kWidth / 2);
  CHECK(red["max_x"].get<int>() > kWidth / 2);
  CHECK(s["colors"]["#f2a93b"]["count"].get<int>() > 300);
}

// The reference storms' comparison report (exponential against full jitter), in dir.
std::string write_comparison_report(const TempDir& dir) {
  const auto html = dir.file("storm.html");
  write_file(html, render_report({golden_results("storm_exponential.results.json"),
                                  golden_results("storm_full_jitter.results.json")},
                                 {"exponential", "full-jitter"}));
  return html;
}

}  // namespace

TEST_CASE("a real browser renders the comparison report, with and without JavaScript" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing())) * doctest::test_suite("browser")) {
  TempDir dir;
  const auto html = write_comparison_report(dir);
  const auto with_js = screenshot(dir, html);
  const auto without_js = screenshot_without_javascript(dir, html);
  check_picture(with_js);
  check_picture(without_js);
  // Nothing needs a script: the page looks the same without one.
  for (const auto& c : kChartColors) {
    CAPTURE(c);
    CHECK(without_js["colors"][c]["count"] == with_js["colors"][c]["count"]);
  }
}

// --dump-dom serialises the page with a script of its own, so this one runs with JavaScript on:
// the browser may run scripts, and the hostile names still never become one.
TEST_CASE("in a real browser, a hostile name is text, not a script or an element" *
          doctest::description("needs the Debian package chromium") *
          doctest::skip(skip_unless_ci(browser_missing())) * doctest::test_suite("browser")) {
  TempDir dir;
  auto r = golden_results("storm_full_jitter.results.json");
  r.scenario.name = "<script>alert(1)</script>";
  const auto html = dir.file("hostile.html");
  write_file(html, render_report({r}, {"<img src=x onerror=alert(2)>"}));
  const auto dom =
      run(chromium_command(dir, "profile") + " --dump-dom " + quote("file://" + html), false);
  REQUIRE(dom.exit_code == 0);
  CHECK(dom.output.find("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>") != std::string::npos);
  CHECK(dom.output.find("&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
  CHECK(dom.output.find("<script") == std::string::npos);
  CHECK(dom.output.find("<img") == std::string::npos);
}

// The report of a staging run (golden/staging_run.results.json, a real run against a
// fakeprovider standing in for staging), stopped early: Chromium shows its run context and
// banner at the top, and the retry waves in their own panel below the first wave's.
TEST_CASE("a real browser shows a staging run's context, its stop and its retry waves" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing())) * doctest::test_suite("browser")) {
  TempDir dir;
  auto r = golden_results("staging_run.results.json");
  REQUIRE(r.context);
  r.context->stopped_by = "--max-duration 5s";
  r.recording.unfinished = 7;
  const auto html = dir.file("staging.html");
  write_file(html, render_report({r}, {}));

  const auto dom =
      run(chromium_command(dir, "dom-profile") + " --dump-dom " + quote("file://" + html), false);
  REQUIRE(dom.exit_code == 0);
  for (const std::string& shown :
       {std::string("Stopped early: by --max-duration 5s after "),
        std::string("7 items unfinished"), r.context->target, r.context->started_utc,
        std::string("0.25 (a wall second is 4 scenario"),
        std::string("Retries per second, from the first retry on"),
        std::string("Sends per second, by send number"), std::string("Status codes per second"),
        std::string("Response time by send number"), std::string("Dead letters by reason"),
        std::string("declared allowance 20/s")}) {
    CAPTURE(shown);
    CHECK(dom.output.find(shown) != std::string::npos);
  }
  CHECK(dom.output.find("<section id=\"context\">") < dom.output.find("<section id=\"summary\">"));
  for (const char* id : {"waves", "retries", "statuses", "response", "dead-letters"}) {
    CAPTURE(id);
    const auto at = dom.output.find("<section id=\"" + std::string(id) + "\">");
    REQUIRE(at != std::string::npos);
    CHECK(dom.output.find("<svg", at) < dom.output.find("</section>", at));
  }

  constexpr const char* kFirstSend = "#3b4cc0";
  constexpr const char* kSecondSend = "#2f86d6";
  constexpr const char* kBanner = "#fff1f0";
  const auto png = dir.file("staging.png");
  const auto shot = run(chromium_command(dir, "shot-profile") + " --screenshot=" + quote(png) +
                        " --window-size=1280,3400 " + quote("file://" + html));
  REQUIRE_MESSAGE(shot.exit_code == 0, shot.output);
  const auto s = png_stats(png, {kFirstSend, kSecondSend, kBanner});
  CAPTURE(s.dump());
  CHECK(s["colors"][kBanner]["count"].get<int>() > 5'000);
  CHECK(s["colors"][kBanner]["min_y"].get<int>() < 200);  // at the top
  // First sends only in the waves panel; second sends there and in the retries panel below.
  CHECK(s["colors"][kFirstSend]["count"].get<int>() > 200);
  CHECK(s["colors"][kSecondSend]["count"].get<int>() > 400);
  CHECK(s["colors"][kSecondSend]["max_y"].get<int>() >
        s["colors"][kFirstSend]["max_y"].get<int>() + 200);
}

namespace {

// What the JavaScript expression (whose value is JSON text) reads of the page at html, laid out
// by Chromium on a laptop's screen, 1280x800 (cdp_readings.py).
nlohmann::json reading_of(const TempDir& dir, const std::string& html,
                          const std::string& expression) {
  const auto read =
      run("timeout 120 python3 " + quote(source_path("tests/report/cdp_readings.py")) + " " +
          quote(chromium()) + " " + quote(dir.file("reading-profile")) + " 1280 800 " +
          quote("file://" + html) + " " + quote(dir.file("unused.png")) + " " + quote(expression) +
          " 0");
  REQUIRE_MESSAGE(read.exit_code == 0, read.output);
  return nlohmann::json::parse(read.output)[0];
}

}  // namespace

// The verdict on a laptop's first screen (1280x800), read from Chromium's layout: the failed
// checks, how far each missed and what to change, all above the first chart.
TEST_CASE("in a real browser, the report's first screen names the failed checks and the fix" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing())) * doctest::test_suite("browser")) {
  TempDir dir;
  const auto html = write_comparison_report(dir);
  const std::string reading =
      "JSON.stringify((() => { const v = document.getElementById('verdict');"
      " const f = document.querySelector('figure');"
      " return {bottom: v.getBoundingClientRect().bottom, figure: f.getBoundingClientRect().top,"
      " screen: window.innerHeight, text: v.innerText}; })())";
  const auto r = reading_of(dir, html, reading);
  CAPTURE(r.dump());
  CHECK(r["screen"] == 800);
  CHECK(r["bottom"].get<double>() <= 800);
  CHECK(r["bottom"].get<double>() < r["figure"].get<double>());
  const auto text = r["text"].get<std::string>();
  for (const char* shown :
       {"Failed: exponential (3 of 4 checks)", "FAIL peak_ratio <= 2: measured 10, needs <= 2",
        "drain_s <= 120: measured 543 s", "What to change (the herd", "--strategy full-jitter",
        "full-jitter: all 4 checks passed."}) {
    CAPTURE(shown);
    CHECK(text.find(shown) != std::string::npos);
  }
}

// Each outage label scrolled into view: what the browser finds at its centre is the label,
// not a bar or a tooltip's column drawn over it.
TEST_CASE("in a real browser, no outage label is under a bar" *
          doctest::description("needs the Debian package chromium, and python3") *
          doctest::skip(skip_unless_ci(browser_missing())) * doctest::test_suite("browser")) {
  TempDir dir;
  const auto html = write_comparison_report(dir);
  const auto r = reading_of(
      dir, html,
      "JSON.stringify((() => { const labels = [...document.querySelectorAll('text')]"
      ".filter(t => t.textContent === 'outage');"
      " const hidden = labels.filter(t => { t.scrollIntoView({block: 'center'});"
      " const b = t.getBoundingClientRect();"
      " return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2) !== t;"
      " }).length; return {labels: labels.length, hidden: hidden}; })())");
  CAPTURE(r.dump());
  CHECK(r["labels"].get<int>() >= 6);  // arrivals, waves, backoff: each run's panel
  CHECK(r["hidden"] == 0);
}
