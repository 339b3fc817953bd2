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
