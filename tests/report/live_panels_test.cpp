// The live dashboards' charts (the events' "panels"): drawn by the report's chart code, so a
// fixed snapshot draws the same SVG every time, checked against golden files as the report is.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "html_report.hpp"
#include "live_page.hpp"
#include "report_test_support.hpp"

using namespace stampede;
using namespace report_test;

namespace {

// Where the counts' last bin ends: a snapshot taken then draws what the report draws.
std::int64_t counted_ns(const BinnedCounts& h) {
  return static_cast<std::int64_t>(h.bins()) * h.bin_ns();
}

// The provider's page: the storm's arrivals at the provider, under its allowance and outage.
nlohmann::json provider_panels(const Results& r) {
  const auto& rec = r.recording;
  return live_panels(
      {rec.provider_by_outcome, rec.provider_by_send, counted_ns(rec.provider_by_outcome)},
      r.scenario.provider);
}

// The fleet's page: a live run's answers and sends as its clients read them.
nlohmann::json fleet_panels(const Results& r, std::string_view prefix = "") {
  const auto& rec = r.recording;
  return live_panels(
      {rec.client_by_outcome, rec.client_by_send_number, counted_ns(rec.client_by_outcome), false},
      r.scenario.provider, prefix);
}

// What a panel's time axis says: the seconds its right edge stands for, read off its last
// labelled tick (the x axis's labels sit at y=233, the plot runs from x=62 to x=626), and the
// seconds each outage's shading covers.
struct AxisReading {
  double end_s = 0;
  std::vector<std::pair<double, double>> outages;
};

// The number an attribute holds: after `name="` at or after from, within the tag there.
std::optional<double> attribute(const std::string& svg, std::size_t from, const std::string& name) {
  const auto tag_end = svg.find('>', from);
  const auto at = svg.find(" " + name + "=\"", from);
  if (at == std::string::npos || at > tag_end) return std::nullopt;
  return std::stod(svg.substr(at + name.size() + 3));
}

AxisReading read_axis(const std::string& svg) {
  constexpr double kPlotLeft = 62, kPlotWidth = 564;
  // An x-axis label: <text x="X" y="233" text-anchor="middle">SECONDS</text>.
  double px_per_s = 0;
  for (auto at = svg.find("<text "); at != std::string::npos; at = svg.find("<text ", at + 1)) {
    const auto head_end = svg.find('>', at);
    const std::string label_tail = " y=\"233\" text-anchor=\"middle\"";
    if (head_end < at + label_tail.size() ||
        svg.compare(head_end - label_tail.size(), label_tail.size(), label_tail) != 0)
      continue;
    const double at_s = std::stod(svg.substr(head_end + 1));
    if (at_s > 0) px_per_s = (*attribute(svg, at, "x") - kPlotLeft) / at_s;
  }
  REQUIRE(px_per_s > 0);
  AxisReading r{kPlotWidth / px_per_s, {}};
  const auto from = svg.find("<g class=\"outages\"");
  if (from == std::string::npos) return r;
  const auto group_end = svg.find("</g>", from);
  for (auto at = svg.find("<rect ", from); at < group_end; at = svg.find("<rect ", at + 1)) {
    const double x = *attribute(svg, at, "x") - kPlotLeft;
    r.outages.emplace_back(x / px_per_s, (x + *attribute(svg, at, "width")) / px_per_s);
  }
  return r;
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
  const auto empty = live_panels({no_outcomes, no_sends, 0}, ProviderConfig{});
  CHECK(empty.at("waves-chart").get<std::string>().find("nothing sent yet") != std::string::npos);
  CHECK(empty.at("arrivals-chart").get<std::string>().find("no arrivals recorded") !=
        std::string::npos);
}

TEST_CASE("live axis: to now, in the report's columns, widened to at most 600 of them") {
  struct Case {
    std::int64_t column_ns, now_ns;
    std::int64_t want_column_ns;
    double want_end_s;
  };
  const std::vector<Case> cases{
      {kNsPerSec, 13'900'000'000, kNsPerSec, 13.9},  // past the last bin: to now all the same
      {kNsPerSec, 0, kNsPerSec, 0},                  // just reset
      {kNsPerSec, 600 * kNsPerSec, kNsPerSec, 600},  // 600 columns of a second
      {kNsPerSec, 600 * kNsPerSec + 1, 2 * kNsPerSec, 600.000000001},
      {kNsPerSec, 7200 * kNsPerSec, 12 * kNsPerSec, 7200},  // two quiet hours after a storm
      {10 * kNsPerSec, 7200 * kNsPerSec, 20 * kNsPerSec, 7200},
  };
  for (const auto& c : cases) {
    CAPTURE(c.column_ns);
    CAPTURE(c.now_ns);
    const auto axis = live_axis(c.column_ns, c.now_ns);
    CHECK(axis.column_ns == c.want_column_ns);
    CHECK(axis.end_s == doctest::Approx(c.want_end_s));
  }
}

TEST_CASE("live panels: at t s since the reset the axis reaches t, an outage shaded to its end") {
  // Traffic until 8 s, then nothing: the provider answers every request 503 from 6 s on and
  // the fleet gave up. At 13.9 s the first outage is over, the second still going, the third
  // not begun.
  BinnedCounts by_outcome(kNsPerSec, kOutcomeCount), by_send(kNsPerSec, kSendLabels);
  for (std::int64_t s = 0; s < 8; ++s) {
    by_outcome.add(s * kNsPerSec, static_cast<std::size_t>(Outcome::kOk), 20);
    by_outcome.add(s * kNsPerSec, static_cast<std::size_t>(Outcome::kRateLimited), 15);
    by_send.add(s * kNsPerSec, 0, 25);
    by_send.add(s * kNsPerSec, 1, 10);
  }
  ProviderConfig provider;
  provider.allowance = Rate{20, kNsPerSec};
  provider.outages = {{2 * kNsPerSec, 4 * kNsPerSec, OutageAction::kStatus503},
                      {6 * kNsPerSec, 30 * kNsPerSec, OutageAction::kStatus503},
                      {20 * kNsPerSec, 25 * kNsPerSec, OutageAction::kStatus529}};
  const auto panels = live_panels({by_outcome, by_send, 13'900'000'000}, provider);
  for (const char* id : {"arrivals-chart", "waves-chart"}) {
    CAPTURE(id);
    const auto axis = read_axis(panels.at(id).get<std::string>());
    CHECK(axis.end_s == doctest::Approx(13.9).epsilon(0.002));
    REQUIRE(axis.outages.size() == 2);
    CHECK(axis.outages[0].first == doctest::Approx(2).epsilon(0.002));
    CHECK(axis.outages[0].second == doctest::Approx(4).epsilon(0.002));
    CHECK(axis.outages[1].first == doctest::Approx(6).epsilon(0.002));
    CHECK(axis.outages[1].second == doctest::Approx(13.9).epsilon(0.002));
  }
  check_golden("live_provider_arrivals_at_13.9s.svg",
               panels.at("arrivals-chart").get<std::string>());
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
          {"pace",
           {{"now_per_s", 38},
            {"now_from_s", 11},
            {"now_to_s", 12},
            {"peak_per_s", 95},
            {"peak_second", 4},
            {"peak_from_s", 0},
            {"peak_ratio", 4.75}}},
          {"allowance", {{"per_s", 20}, {"text", "20/s"}}},
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
          {"pace",
           {{"now_per_s", nullptr},
            {"now_from_s", 0},
            {"now_to_s", 0},
            {"peak_per_s", 0},
            {"peak_second", 0},
            {"peak_from_s", 0},
            {"peak_ratio", nullptr}}},
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
  CHECK(figures.find("since the start or the last reset<b id=\"since-reset\">12 s</b>") !=
        std::string::npos);
  CHECK(panels.at("lockstep") == "0.934");
  const auto rows = panels.at("tenant-rows").get<std::string>();
  CHECK(rows.find("&lt;b&gt;key-a&lt;/b&gt;</td><td class=\"num\">7,000</td><td "
                  "class=\"num\">74 %") != std::string::npos);
  CHECK(rows.find("<b>") == std::string::npos);
  CHECK(rows.find("(no key)") != std::string::npos);
  CHECK(e.at("hidden") == nlohmann::json{{"tenants", false}, {"upstream", true}});

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

TEST_CASE("live figures: plain words, the rate now and the peak ratio so far") {
  auto e = provider_event();
  add_live_figures(e, false);
  // When, not which event: the page's status line says it.
  CHECK(e.at("updated") == "updated 12 s after the start or the last reset");
  auto figures = e.at("panels").at("more-figures").get<std::string>();
  CHECK(figures.find("arrivals/s, t=11\u2013"
                     "12 s<b id=\"rate-now\">38</b>") != std::string::npos);
  CHECK(figures.find("peak ratio: the busiest second, 95/s at t=4 s, over 20/s<b "
                     "id=\"peak-ratio\">4.75x</b>") != std::string::npos);
  // The by-send chart is full, but no item was told apart by a header: no "0 items" beside it.
  CHECK(figures.find("items-seen") == std::string::npos);
  e["items_seen"] = 40;
  add_live_figures(e, false);
  CHECK(e.at("panels")
            .at("more-figures")
            .get<std::string>()
            .find("items and clients it numbers the sends of<b id=\"items-seen\">40</b>") !=
        std::string::npos);

  // An outage that ends at 30 s: the peak is counted from there, as the gate counts it.
  e = provider_event();
  e["pace"]["peak_from_s"] = 30;
  add_live_figures(e, false);
  figures = e.at("panels").at("more-figures").get<std::string>();
  CHECK(figures.find("peak ratio: counted from t=30 s, when the last outage ends<b "
                     "id=\"peak-ratio\">-</b>") != std::string::npos);
  e["clock_ns"] = 35'000'000'000;
  add_live_figures(e, false);
  CHECK(e.at("panels")
            .at("more-figures")
            .get<std::string>()
            .find("the busiest second after the last outage, 95/s at t=4 s, over 20/s") !=
        std::string::npos);

  // The fleet's page: its sends; no whole second yet, no limit declared (so no ratio).
  e = fleet_event(nullptr);
  add_live_figures(e, true);
  CHECK(e.at("updated") == "updated 6.06 s after the start");
  figures = e.at("panels").at("more-figures").get<std::string>();
  CHECK(figures.find("sends/s over the last second<b id=\"rate-now\">-</b>") != std::string::npos);
  CHECK(figures.find("peak-ratio") == std::string::npos);
}

TEST_CASE("live figures: proxy mode's upstream, its answers apart from the provider's refusals") {
  auto e = provider_event();
  e["upstream"] = {
      {"forwarded", 3100}, {"upstream_429", 40}, {"upstream_5xx", 7}, {"upstream_error", 3}};
  add_live_figures(e, false);
  CHECK(e.at("hidden").at("upstream") == false);
  const auto figures = e.at("panels").at("upstream-figures").get<std::string>();
  CHECK(figures.find("forwarded to it<b id=\"upstream-forwarded\">3,100</b>") != std::string::npos);
  CHECK(figures.find("answered 429 by it<b id=\"upstream-429\">40</b>") != std::string::npos);
  CHECK(figures.find("answered 5xx by it<b id=\"upstream-5xx\">7</b>") != std::string::npos);
  CHECK(figures.find("no whole answer (refused, reset, timed out)<b "
                     "id=\"upstream-error\">3</b>") != std::string::npos);
  CHECK(figures.find("another status (2xx, 3xx, 4xx), or not over yet<b "
                     "id=\"upstream-other\">3,050</b>") != std::string::npos);
  // Not a proxy (null), or an event with no upstream at all (loadgen exec's): hidden.
  e["upstream"] = nullptr;
  add_live_figures(e, false);
  CHECK(e.at("hidden").at("upstream") == true);
  e.erase("upstream");
  add_live_figures(e, false);
  CHECK(e.at("hidden").at("upstream") == true);
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

TEST_CASE("live page: the lockstep score with its scale; the upstream's section until told") {
  const auto provider = render_live_page({"fakeprovider", "/admin/live", false, ""});
  CHECK(provider.find("Lockstep score so far: <b id=\"lockstep\">-</b>, the share of the retries "
                      "that came in the busiest tenth of the time since the first refusal: about "
                      "0.1 when they are spread evenly, 1 when they all come together.") !=
        std::string::npos);
  CHECK(provider.find("<section id=\"upstream\" hidden=\"\">") != std::string::npos);
  CHECK(provider.find("id=\"upstream-figures\"") != std::string::npos);
  // The fleet's page has neither: its event has no lockstep, and its upstream is the target.
  const auto fleet = render_live_page({"loadgen run", "/live", true, ""});
  CHECK(fleet.find("id=\"lockstep\"") == std::string::npos);
  CHECK(fleet.find("id=\"upstream\"") == std::string::npos);
}
