#include "live_page.hpp"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "chart_kinds.hpp"
#include "charts.hpp"
#include "html_escape.hpp"
#include "html_report.hpp"
#include "plot.hpp"
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

// What the script reads: its stream, and which page it is.
json page_config(const LivePage& page) {
  return {{"stream", page.stream_path}, {"fleet", page.fleet}};
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

// The report's chart of that id, as the report draws it for this one run.
std::string report_panel(std::string_view id, const std::vector<Results>& run) {
  const auto& charts = report_charts();
  const auto chart =
      std::find_if(charts.begin(), charts.end(), [&](const Chart& c) { return c.id == id; });
  if (!chart->applies(run.front())) return placeholder_chart("nothing sent yet");
  return chart->draw(run.front(), shared_scale(*chart, run, column_ns_for(run)));
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

// Shows the events: swaps in their panels (drawn by the server) and writes their figures.
constexpr const char* kScript = R"JS(
(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  var C = JSON.parse($("config").textContent), last = null;
  function fmt(v) {
    if (!isFinite(v)) return "-";
    if (Math.abs(v) >= 1000 || v === Math.round(v)) return Math.round(v).toLocaleString("en-US");
    return String(Number(v.toPrecision(3)));
  }
  function esc(t) {
    return String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function figure(id, label, value) {
    return '<div>' + esc(label) + '<b id="' + id + '">' + esc(value) + "</b></div>";
  }
  // The fleet's own figures when the event has them (loadgen's), else the provider's.
  function figures(e) {
    var f = figure("admitted", "admitted", fmt(e.admitted)) + figure("refused", "refused", fmt(e.refused));
    if (e.fleet) {
      Object.keys(e.fleet).forEach(function (k) {
        f += figure(k.replace(/_/g, "-"), k.replace(/_/g, " "), fmt(e.fleet[k]));
      });
      return f + figure("since-start", "since the start", fmt(e.clock_ns / 1e9) + " s");
    }
    return f + figure("tenants-seen", "tenants seen", fmt(e.tenants_seen)) +
      figure("items-seen", "items and clients counted", fmt(e.items_seen)) +
      figure("since-reset", "since the last reset", fmt(e.clock_ns / 1e9) + " s");
  }
  // The provider's view beside the fleet's (loadgen run --provider-admin), or why it is not
  // there; its charts come in the event's panels.
  function showProvider(e) {
    var p = e.provider, seen = !!p && !p.error;
    $("provider-status").textContent = !p ? "Not read: give loadgen run --provider-admin to see it." :
      p.error ? "Could not be read: " + p.error : "As its GET /admin/stats said at its scenario time " +
      fmt(p.clock_ns / 1e9) + " s.";
    $("provider-view").hidden = !seen;
    if (!seen) return;
    $("provider-figures").innerHTML = figure("provider-requests", "requests", fmt(p.requests)) +
      figure("provider-admitted", "admitted", fmt(p.admitted)) +
      figure("provider-refused", "refused", fmt(p.refused));
  }
  function showLateness(l) {
    var ms = function (v) { return l && l.sends > 0 ? fmt(v) + " ms" : "-"; };
    $("lateness-p50").textContent = ms(l && l.p50_ms);
    $("lateness-p99").textContent = ms(l && l.p99_ms);
    $("lateness-max").textContent = ms(l && l.max_ms);
  }
  function show(e) {
    Object.keys(e.panels || {}).forEach(function (id) { $(id).innerHTML = e.panels[id]; });
    $("requests").textContent = fmt(e.requests);
    $("more-figures").innerHTML = figures(e);
    if (C.fleet) {
      showLateness(e.lateness);
      showProvider(e);
      return;
    }
    $("lockstep").textContent = !e.lockstep ? "-" : e.lockstep.retries > 0 ? fmt(e.lockstep.share) :
      "no retries yet";
    $("tenants").hidden = e.top_tenants.length === 0;
    $("tenant-rows").innerHTML = e.top_tenants.map(function (t) {
      return "<tr><td class=\"key\">" + esc(t.tenant === "" ? "(no key)" : t.tenant) +
        '</td><td class="num">' + fmt(t.requests) + '</td><td class="num">' +
        fmt(t.share_429 * 100) + " %</td></tr>";
    }).join("");
  }
  if (location.search.indexOf("token=") >= 0) history.replaceState(null, "", location.pathname);
  var source = new EventSource(C.stream);
  source.onmessage = function (m) {
    last = JSON.parse(m.data);
    show(last);
    $("status").textContent = "live: event " + last.seq +
      (last.streams ? ", " + fmt(last.streams) + " dashboard(s) open" : "");
  };
  source.onerror = function () {
    source.close();
    $("status").className = "desc ended";
    $("status").textContent = "the stream has ended" + (last ? "; this is the last picture, from event " +
      last.seq : "") + ". Reload the page to reconnect.";
  };
})();
)JS";

}  // namespace

// The provider sees every client: its arrivals, their send numbers and tenants. The fleet's
// page shows what its own clients read.
std::string provider_sections() {
  return "<div class=\"two\">" +
         chart_section("arrivals", "Arrivals per second, by outcome",
                       "What the provider sees each second, from every client, against its "
                       "allowance; outages shaded.",
                       outcome_layers()) +
         chart_section("waves", "Arrivals per second, by send number",
                       "First sends, first retries, second retries ...: lockstep retries come "
                       "back as one wave per send number. Lockstep score so far: <b "
                       "id=\"lockstep\">-</b>.",
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

nlohmann::json live_panels(const LiveCounts& counts, const ProviderConfig& provider,
                           std::string_view prefix) {
  const std::vector<Results> run{results_of(counts, provider)};
  const std::string at(prefix);
  return {{at + "arrivals-chart", report_panel("arrivals", run)},
          {at + "waves-chart", report_panel("waves", run)}};
}

}  // namespace stampede
