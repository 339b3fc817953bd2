#include "live_page.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "chart_kinds.hpp"
#include "charts.hpp"
#include "html_escape.hpp"
#include "html_report.hpp"
#include "plot.hpp"
#include "report_format.hpp"
#include "results.hpp"

namespace stampede {
namespace {

using json = nlohmann::json;

// What the page adds to the report's stylesheet.
constexpr const char* kLiveStyle = R"(
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:6px 18px;margin:4px 0 0}
.figures div{font-size:12px;color:#5b6270}
.figures b{display:block;font-size:20px;color:#1f2328;font-variant-numeric:tabular-nums}
#more-figures{display:contents}
#status.ended{color:#82071e;font-weight:600}
.two{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:0 14px}
)";

// What the script reads: its stream.
json page_config(const LivePage& page) {
  return {{"stream", page.stream_path}};
}

// A report's results holding only what the two charts read.
Results results_of(const LiveCounts& counts, const ProviderConfig& provider) {
  Results r;
  r.provider_side = counts.provider_side;
  r.scenario.provider = provider;
  auto& rec = r.recording;
  (counts.provider_side ? rec.provider_by_outcome : rec.client_by_outcome) = counts.by_outcome;
  (counts.provider_side ? rec.provider_by_send : rec.client_by_send_number) = counts.by_send;
  return r;
}

// The report's chart of that id, as the report draws it for this one run, its axis to now.
std::string report_panel(std::string_view id, const std::vector<Results>& run,
                         std::int64_t now_ns) {
  const auto& charts = report_charts();
  const auto chart =
      std::find_if(charts.begin(), charts.end(), [&](const Chart& c) { return c.id == id; });
  if (!chart->applies(run.front())) return placeholder_chart("nothing sent yet");
  const auto axis = live_axis(column_ns_for(run), now_ns);
  auto scale = shared_scale(*chart, run, axis.column_ns);
  scale.x_max = std::max(scale.x_max, axis.end_s);
  return chart->draw(run.front(), scale);
}

// The layers, then the allowance and the outages, drawn over both charts as in the report.
std::string legend(const std::vector<Layer>& layers) {
  std::vector<LegendEntry> entries;
  for (const auto& l : layers) entries.push_back({l.name, l.color});
  entries.push_back({"declared allowance", kAllowanceColor, LegendEntry::Kind::kDashed});
  entries.push_back({"outage", kOutageColor, LegendEntry::Kind::kShade});
  std::string out = "<div class=\"legend\">";
  for (const auto& e : entries)
    out += "<span>" + legend_swatch(e) + html_escape(e.name) + "</span>";
  return out + "</div>";
}

std::string chart_section(const char* id, const char* title, const std::string& note,
                          const std::vector<Layer>& layers) {
  return std::string("<section id=\"") + id + "\"><h2>" + title + "</h2><p class=\"note\">" + note +
         "</p>" + legend(layers) + "<figure class=\"chart\" id=\"" + id + "-chart\">" +
         placeholder_chart("waiting for the first event") + "</figure></section>\n";
}

// Shows the events: each brings the page's elements drawn (its panels) and which sections
// show, swapped in as they come.
constexpr const char* kScript = R"JS(
(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  var C = JSON.parse($("config").textContent), last = null;
  function show(e) {
    Object.keys(e.panels).forEach(function (id) { if ($(id)) $(id).innerHTML = e.panels[id]; });
    Object.keys(e.hidden).forEach(function (id) { if ($(id)) $(id).hidden = e.hidden[id]; });
  }
  if (location.search.indexOf("token=") >= 0) history.replaceState(null, "", location.pathname);
  var source = new EventSource(C.stream);
  source.onmessage = function (m) {
    last = JSON.parse(m.data);
    show(last);
    $("status").textContent = "live: " + last.updated +
      (last.streams > 1 ? "; " + last.streams + " dashboards open" : "");
  };
  source.onerror = function () {
    source.close();
    $("status").className = "desc ended";
    $("status").textContent = "the stream has ended" + (last ? "; this is the last picture, " +
      last.updated : "") + ". Reload the page to reconnect.";
  };
})();
)JS";

double number(const json& v) {
  return v.is_number() ? v.get<double>() : std::nan("");
}

std::string count_of(const json& e, const char* key) {
  return format_count(number(e.at(key)));
}

std::string figure(std::string_view id, std::string_view label, const std::string& value) {
  return "<div>" + html_escape(label) + "<b id=\"" + html_escape(id) + "\">" + html_escape(value) +
         "</b></div>";
}

std::string seconds_of(const json& clock_ns) {
  return format_count(number(clock_ns) / 1e9) + " s";
}

std::string replaced(std::string text, char from, char to) {
  std::replace(text.begin(), text.end(), from, to);
  return text;
}

// The limit a peak is measured against, as declared: "20/s".
std::string limit_text(const json& e) {
  for (const char* key : {"allowance", "capacity"}) {
    const auto it = e.find(key);
    if (it != e.end() && it->is_object()) return it->at("text").get<std::string>();
  }
  return "the declared limit";
}

// The rate now and the peak ratio so far (the event's "pace"): what is sent, in plain words.
std::string pace_figures(const json& e, const char* per_s) {
  const auto& pace = e.at("pace");
  const bool whole = !pace.at("now_per_s").is_null();
  std::string out = figure(
      "rate-now",
      std::string(per_s) + (whole ? ", t=" + format_count(number(pace.at("now_from_s"))) +
                                        "\u2013" + format_count(number(pace.at("now_to_s"))) + " s"
                                  : " over the last second"),
      whole ? count_of(pace, "now_per_s") : "-");
  if (pace.at("peak_ratio").is_null()) return out;  // no limit declared: no ratio to it
  const double from_s = number(pace.at("peak_from_s"));
  if (number(e.at("clock_ns")) / 1e9 < from_s) {
    return out + figure("peak-ratio",
                        "peak ratio: counted from t=" + format_count(from_s) +
                            " s, when the last outage ends",
                        "-");
  }
  return out + figure("peak-ratio",
                      std::string("peak ratio: the busiest second") +
                          (from_s > 0 ? " after the last outage" : "") + ", " +
                          count_of(pace, "peak_per_s") +
                          "/s at t=" + format_count(number(pace.at("peak_second"))) + " s, over " +
                          limit_text(e),
                      count_of(pace, "peak_ratio") + "x");
}

// The fleet's own figures when the event has them (loadgen's), else the provider's.
std::string more_figures(const json& e, bool fleet_page) {
  std::string out = figure("admitted", "admitted", count_of(e, "admitted")) +
                    figure("refused", "refused", count_of(e, "refused")) +
                    pace_figures(e, fleet_page ? "sends/s" : "arrivals/s");
  if (e.contains("fleet")) {
    for (const auto& [key, value] : e.at("fleet").items())
      out += figure(replaced(key, '_', '-'), replaced(key, '_', ' '), format_count(number(value)));
    return out + figure("since-start", "since the start", seconds_of(e.at("clock_ns")));
  }
  out += figure("tenants-seen", "tenants seen", count_of(e, "tenants_seen"));
  // Only items the provider tells apart by a header are counted: a fleet that numbers its own
  // sends (X-Attempt) has none, its by-send chart full all the same.
  if (number(e.at("items_seen")) > 0)
    out += figure("items-seen", "items and clients it numbers the sends of",
                  count_of(e, "items_seen"));
  return out +
         figure("since-reset", "since the start or the last reset", seconds_of(e.at("clock_ns")));
}

// When the event was made, as the page's status line says it.
std::string updated(const json& e, bool fleet_page) {
  return "updated " + seconds_of(e.at("clock_ns")) +
         (fleet_page ? " after the start" : " after the start or the last reset");
}

// The lockstep score and the busiest tenants: the provider's page.
void tenant_figures(const json& e, json& panels, json& hidden) {
  const auto& lockstep = e.at("lockstep");
  panels["lockstep"] = lockstep.is_null()                   ? "-"
                       : number(lockstep.at("retries")) > 0 ? count_of(lockstep, "share")
                                                            : "no retries yet";
  std::string rows;
  for (const auto& t : e.at("top_tenants")) {
    const auto name = t.at("tenant").get<std::string>();
    rows += "<tr><td class=\"key\">" + html_escape(name.empty() ? "(no key)" : name) +
            "</td><td class=\"num\">" + count_of(t, "requests") + "</td><td class=\"num\">" +
            format_count(number(t.at("share_429")) * 100) + " %</td></tr>";
  }
  panels["tenant-rows"] = rows;
  hidden["tenants"] = e.at("top_tenants").empty();
}

// Proxy mode: what the upstream answered what the provider forwarded, or the section hidden.
void upstream_figures(const json& e, json& panels, json& hidden) {
  const auto it = e.find("upstream");
  const bool proxy = it != e.end() && !it->is_null();
  hidden["upstream"] = !proxy;
  if (!proxy) return;
  const auto& u = *it;
  const double told =
      number(u.at("upstream_429")) + number(u.at("upstream_5xx")) + number(u.at("upstream_error"));
  panels["upstream-figures"] =
      figure("upstream-forwarded", "forwarded to it", count_of(u, "forwarded")) +
      figure("upstream-429", "answered 429 by it", count_of(u, "upstream_429")) +
      figure("upstream-5xx", "answered 5xx by it", count_of(u, "upstream_5xx")) +
      figure("upstream-error", "no whole answer (refused, reset, timed out)",
             count_of(u, "upstream_error")) +
      figure("upstream-other", "another status (2xx, 3xx, 4xx), or not over yet",
             format_count(number(u.at("forwarded")) - told));
}

// The loops' wake lateness and the provider's view, or why it is not there: the fleet's page.
void fleet_figures(const json& e, json& panels, json& hidden) {
  const auto& late = e.at("lateness");
  for (const char* q : {"p50", "p99", "max"}) {
    panels[std::string("lateness-") + q] =
        number(late.at("sends")) > 0 ? count_of(late, (std::string(q) + "_ms").c_str()) + " ms"
                                     : "-";
  }
  const auto& p = e.at("provider");
  const bool seen = p.is_object() && !p.contains("error");
  panels["provider-status"] =
      html_escape(p.is_null()           ? "Not read: give loadgen run --provider-admin to see it."
                  : p.contains("error") ? "Could not be read: " + p.at("error").get<std::string>()
                                        : "As its GET /admin/stats said at its scenario time " +
                                              seconds_of(p.at("clock_ns")) + ".");
  hidden["provider-view"] = !seen;
  if (!seen) return;
  panels["provider-figures"] = figure("provider-requests", "requests", count_of(p, "requests")) +
                               figure("provider-admitted", "admitted", count_of(p, "admitted")) +
                               figure("provider-refused", "refused", count_of(p, "refused"));
}

}  // namespace

// The provider sees every client: its arrivals, their send numbers and tenants. The fleet's
// page shows what its own clients read.
std::string provider_sections() {
  return "<section id=\"upstream\" hidden=\"\"><h2>The upstream</h2><p class=\"note\">Proxy "
         "mode: what the upstream answered the requests the provider let through and forwarded "
         "to it, apart from the provider's own refusals (in the totals above).</p><div "
         "class=\"figures\" id=\"upstream-figures\"></div></section>\n"
         "<div class=\"two\">" +
         chart_section("arrivals", "Arrivals per second, by outcome",
                       "What the provider sees each second, from every client, against its "
                       "allowance; outages shaded.",
                       outcome_layers()) +
         chart_section("waves", "Arrivals per second, by send number",
                       "First sends, first retries, second retries ...: lockstep retries come "
                       "back as one wave per send number. Lockstep score so far: <b "
                       "id=\"lockstep\">-</b>, the share of the retries that came in the "
                       "busiest tenth of the time since the first refusal: about 0.1 when they "
                       "are spread evenly, 1 when they all come together.",
                       send_layers()) +
         "</div>\n<section id=\"tenants\"><h2>Tenants</h2><p class=\"note\">The busiest ten by "
         "arrivals, with the share of them answered 429.</p><table><thead><tr><th>tenant</th><th "
         "class=\"num\">arrivals</th><th class=\"num\">429</th></tr></thead><tbody "
         "id=\"tenant-rows\"></tbody></table></section>\n";
}

// The fleet's own view (its clients' answers and sends, its loops' lateness), and beside it
// the provider's when loadgen reads it.
std::string fleet_sections() {
  return "<section id=\"lateness\"><h2>Wake lateness</h2><p class=\"note\">How late the "
         "fleet's loops woke for a send past its intended time, over every send so far: the "
         "harness's own precision, not the target's.</p><div class=\"figures\"><div>p50<b "
         "id=\"lateness-p50\">-</b></div><div>p99<b id=\"lateness-p99\">-</b></div><div>max<b "
         "id=\"lateness-max\">-</b></div></div></section>\n<div class=\"two\">" +
         chart_section("arrivals", "Answers per second, by outcome",
                       "What this fleet's clients read, by the second they sent in, against the "
                       "declared allowance; the scenario's outages shaded.",
                       outcome_layers()) +
         chart_section("waves", "Sends per second, by send number",
                       "The fleet's first sends, first retries, second retries ...: each retry "
                       "as the client sent it.",
                       send_layers()) +
         "</div>\n<section id=\"provider\"><h2>The provider's view</h2><p class=\"note\" "
         "id=\"provider-status\">Waiting for the first event.</p><div id=\"provider-view\" "
         "hidden=\"\"><div class=\"figures\" id=\"provider-figures\"></div><div "
         "class=\"two\">" +
         chart_section("provider-arrivals", "Its arrivals per second, by outcome",
                       "Every client it saw, this fleet's and any other's.", outcome_layers()) +
         chart_section("provider-waves", "Its arrivals per second, by send number",
                       "As the requests' X-Attempt numbered them.", send_layers()) +
         "</div></div></section>\n";
}

std::string render_live_page(const LivePage& page) {
  const std::string title = html_escape(page.title);
  // The configuration is JSON in a script element of its own: `<` escaped, it cannot end it.
  std::string config = page_config(page).dump();
  for (std::size_t at = 0; (at = config.find('<', at)) != std::string::npos;)
    config.replace(at, 1, "\\u003c");
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'\"/>\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>" +
         title + " - stampede live</title>\n<style>" + std::string(report_style()) + kLiveStyle +
         "</style>\n</head>\n<body>\n<main>\n<header><p class=\"kicker\">stampede live</p><h1>" +
         title + "</h1><p class=\"desc\" id=\"status\">connecting to the stream...</p>" +
         (page.report_path.empty()
              ? std::string()
              : "<p class=\"desc\"><a id=\"save\" href=\"" + html_escape(page.report_path) +
                    "\" download=\"\">save</a> the report of what "
                    "it saw so far, as <code>loadgen report</code> makes "
                    "it</p>") +
         "</header>\n"
         "<section id=\"totals\"><h2>Totals</h2><div class=\"figures\"><div>requests<b "
         "id=\"requests\">0</b></div><span id=\"more-figures\"></span></div></section>\n" +
         (page.fleet ? fleet_sections() : provider_sections()) +
         "</main>\n"
         "<script type=\"application/json\" id=\"config\">" +
         config + "</script>\n<script>" + kScript + "</script>\n</body>\n</html>\n";
}

LiveAxis live_axis(std::int64_t column_ns, std::int64_t now_ns) {
  const std::int64_t now = std::max<std::int64_t>(0, now_ns);
  const std::int64_t widest = column_ns * static_cast<std::int64_t>(kMaxColumns);
  const std::int64_t widen = std::max<std::int64_t>(1, now / widest + (now % widest != 0));
  return {column_ns * widen, ns_to_s(now)};
}

nlohmann::json live_panels(const LiveCounts& counts, const ProviderConfig& provider,
                           std::string_view prefix) {
  const std::vector<Results> run{results_of(counts, provider)};
  const std::string at(prefix);
  return {{at + "arrivals-chart", report_panel("arrivals", run, counts.now_ns)},
          {at + "waves-chart", report_panel("waves", run, counts.now_ns)}};
}

void add_live_figures(nlohmann::json& event, bool fleet_page) {
  auto& panels = event["panels"];
  auto& hidden = event["hidden"] = json::object();
  panels["requests"] = count_of(event, "requests");
  panels["more-figures"] = more_figures(event, fleet_page);
  event["updated"] = updated(event, fleet_page);
  if (fleet_page) {
    fleet_figures(event, panels, hidden);
  } else {
    tenant_figures(event, panels, hidden);
    upstream_figures(event, panels, hidden);
  }
}

}  // namespace stampede
