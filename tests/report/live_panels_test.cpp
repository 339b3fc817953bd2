// The live dashboards' charts (the events' "panels"): drawn by the report's chart code, so a
// fixed snapshot draws the same SVG every time, checked against golden files as the report is.
#include <doctest/doctest.h>

#include <string>

#include "html_report.hpp"
#include "live_page.hpp"
#include "report_test_support.hpp"

using namespace stampede;
using namespace report_test;

namespace {

// The provider's page: the storm's arrivals at the provider, under its allowance and outage.
nlohmann::json provider_panels(const Results& r) {
  const auto& rec = r.recording;
  return live_panels({rec.provider_by_outcome, rec.provider_by_send}, r.scenario.provider);
}

// The fleet's page: a live run's answers and sends as its clients read them.
nlohmann::json fleet_panels(const Results& r, std::string_view prefix = "") {
  const auto& rec = r.recording;
  return live_panels({rec.client_by_outcome, rec.client_by_send_number, false}, r.scenario.provider,
                     prefix);
}

}  // namespace

TEST_CASE("the live dashboards' panels of a fixed snapshot match their golden files") {
  const auto storm = provider_panels(golden_results("storm_full_jitter.results.json"));
  check_golden("live_provider_arrivals.svg", storm.at("arrivals-chart").get<std::string>());
  check_golden("live_provider_waves.svg", storm.at("waves-chart").get<std::string>());
  const auto run = fleet_panels(golden_results("staging_run.results.json"));
  check_golden("live_fleet_arrivals.svg", run.at("arrivals-chart").get<std::string>());
  check_golden("live_fleet_waves.svg", run.at("waves-chart").get<std::string>());
}

TEST_CASE("a live panel is the report's own chart of the same counts") {
  // The report of the storm, less the peak its summary marks (a snapshot has no summary),
  // holds each panel as drawn for the dashboard, byte for byte.
  auto r = golden_results("storm_full_jitter.results.json");
  r.summary = {};
  const auto html = render_report({r}, {"storm"});
  const auto panels = provider_panels(r);
  REQUIRE(panels.size() == 2);
  for (const auto& [id, svg] : panels.items()) {
    CAPTURE(id);
    CHECK(svg.get<std::string>().starts_with("<svg"));
    CHECK(html.find(svg.get<std::string>()) != std::string::npos);
  }
}

TEST_CASE("live panels: the page's ids, the layers, limits and outages the browser counts") {
  const auto r = golden_results("staging_run.results.json");
  const auto panels = fleet_panels(r, "provider-");
  CHECK(panels.contains("provider-arrivals-chart"));
  CHECK(panels.contains("provider-waves-chart"));
  const auto arrivals = panels.at("provider-arrivals-chart").get<std::string>();
  CHECK(arrivals.find("<g class=\"bars\"") != std::string::npos);
  CHECK(arrivals.find("<g class=\"limit\"") != std::string::npos);  // its declared allowance
  CHECK(arrivals.find("client sends/s") != std::string::npos);      // the clients' view

  // Nothing counted yet: a panel that says so, never a broken one.
  const BinnedCounts no_outcomes(kNsPerSec, kOutcomeCount), no_sends(kNsPerSec, kSendLabels);
  const auto empty = live_panels({no_outcomes, no_sends}, ProviderConfig{});
  CHECK(empty.at("waves-chart").get<std::string>().find("nothing sent yet") != std::string::npos);
  CHECK(empty.at("arrivals-chart").get<std::string>().find("no arrivals recorded") !=
        std::string::npos);
}

namespace {

// An event of the provider's page (docs/ADMIN_API.md, GET /admin/live), its figures' fields.
nlohmann::json provider_event() {
  return {{"requests", 10500},
          {"admitted", 3100},
          {"refused", 7400},
          {"tenants_seen", 3},
          {"items_seen", 0},
          {"clock_ns", 12'000'345'678},
          {"lockstep", {{"share", 0.934}, {"retries", 6900}}},
          {"top_tenants",
           {{{"tenant", "<b>key-a</b>"}, {"requests", 7000}, {"share_429", 0.74}},
            {{"tenant", ""}, {"requests", 3}, {"share_429", 0.0}}}},
          {"panels", {{"arrivals-chart", "<svg/>"}}}};
}

// An event of loadgen run's page: the fleet's items, its lateness, the provider's view.
nlohmann::json fleet_event(const nlohmann::json& provider) {
  return {{"requests", 582},
          {"admitted", 89},
          {"refused", 493},
          {"clock_ns", 6'060'000'000},
          {"fleet", {{"delivered", 80}, {"in_flight", 12}}},
          {"lateness", {{"sends", 5210}, {"p50_ms", 0.08}, {"p99_ms", 2.1}, {"max_ms", 9.7}}},
          {"provider", provider},
          {"panels", nlohmann::json::object()}};
}

}  // namespace

TEST_CASE("live figures: the provider's page's totals, lockstep and tenants, escaped") {
  auto e = provider_event();
  add_live_figures(e, false);
  const auto& panels = e.at("panels");
  CHECK(panels.at("arrivals-chart") == "<svg/>");  // the charts kept
  CHECK(panels.at("requests") == "10,500");
  const auto figures = panels.at("more-figures").get<std::string>();
  CHECK(figures.find("<b id=\"admitted\">3,100</b>") != std::string::npos);
  CHECK(figures.find("tenants seen<b id=\"tenants-seen\">3</b>") != std::string::npos);
  CHECK(figures.find("since the last reset<b id=\"since-reset\">12 s</b>") != std::string::npos);
  CHECK(panels.at("lockstep") == "0.934");
  const auto rows = panels.at("tenant-rows").get<std::string>();
  CHECK(rows.find("&lt;b&gt;key-a&lt;/b&gt;</td><td class=\"num\">7,000</td><td "
                  "class=\"num\">74 %") != std::string::npos);
  CHECK(rows.find("<b>") == std::string::npos);
  CHECK(rows.find("(no key)") != std::string::npos);
  CHECK(e.at("hidden") == nlohmann::json{{"tenants", false}});

  e = provider_event();
  e["lockstep"]["retries"] = 0;
  e["top_tenants"] = nlohmann::json::array();
  add_live_figures(e, false);
  CHECK(e.at("panels").at("lockstep") == "no retries yet");
  CHECK(e.at("hidden").at("tenants") == true);
  e["lockstep"] = nullptr;
  add_live_figures(e, false);
  CHECK(e.at("panels").at("lockstep") == "-");
}

TEST_CASE("live figures: the fleet's page's items, lateness, and the provider's view or why not") {
  const nlohmann::json read{
      {"clock_ns", 6'000'000'000}, {"requests", 1234}, {"admitted", 89}, {"refused", 1145}};
  auto e = fleet_event(read);
  add_live_figures(e, true);
  const auto& panels = e.at("panels");
  const auto figures = panels.at("more-figures").get<std::string>();
  CHECK(figures.find("in flight<b id=\"in-flight\">12</b>") != std::string::npos);
  CHECK(figures.find("since the start<b id=\"since-start\">6.06 s</b>") != std::string::npos);
  CHECK(panels.at("lateness-p50") == "0.08 ms");
  CHECK(panels.at("lateness-p99") == "2.1 ms");
  CHECK(panels.at("lateness-max") == "9.7 ms");
  CHECK(panels.at("provider-status") == "As its GET /admin/stats said at its scenario time 6 s.");
  CHECK(panels.at("provider-figures")
            .get<std::string>()
            .find("<b id=\"provider-requests\">1,234</b>") != std::string::npos);
  CHECK(e.at("hidden") == nlohmann::json{{"provider-view", false}});

  e = fleet_event({{"error", "GET /admin/stats: answered <401>"}});
  e["lateness"]["sends"] = 0;
  add_live_figures(e, true);
  CHECK(e.at("panels").at("provider-status") ==
        "Could not be read: GET /admin/stats: answered &lt;401&gt;");
  CHECK_FALSE(e.at("panels").contains("provider-figures"));
  CHECK(e.at("panels").at("lateness-p99") == "-");
  CHECK(e.at("hidden").at("provider-view") == true);

  e = fleet_event(nullptr);
  add_live_figures(e, true);
  CHECK(e.at("panels").at("provider-status") ==
        "Not read: give loadgen run --provider-admin to see it.");
  CHECK(e.at("hidden").at("provider-view") == true);
}
