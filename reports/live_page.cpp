#include "live_page.hpp"

#include <nlohmann/json.hpp>

#include "chart_kinds.hpp"
#include "charts.hpp"
#include "html_escape.hpp"
#include "html_report.hpp"
#include "plot.hpp"

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

// The stacked charts' layers, the plot's frame and the colours, as the report's C++ has them.
json page_config(const LivePage& page) {
  auto layers = [](const std::vector<Layer>& from) {
    json out = json::array();
    for (const auto& l : from)
      out.push_back({{"name", l.name}, {"color", l.color}, {"labels", l.labels}});
    return out;
  };
  return {{"stream", page.stream_path},
          {"fleet", page.fleet},
          {"outcomes", layers(outcome_layers())},
          {"sends", layers(send_layers())},
          {"frame",
           {{"width", kWidth},
            {"height", kHeight},
            {"left", kLeft},
            {"right", kRight},
            {"top", kTop},
            {"bottom", kBottom},
            {"columns", kMaxColumns}}},
          {"colors",
           {{"ink", kInk},
            {"grid", kGrid},
            {"allowance", kAllowanceColor},
            {"capacity", kCapacityColor},
            {"outage", kOutageColor}}}};
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

// Draws the events: keeps the bins (each event replaces them from its from_bin on) and redraws
// every chart as the report would, columns of whole seconds, at most frame.columns of them.
constexpr const char* kScript = R"JS(
(function () {
  "use strict";
  var C = JSON.parse(document.getElementById("config").textContent), F = C.frame;
  var bins = {out: [], send: []}, last = null;
  function $(id) { return document.getElementById(id); }
  function fmt(v) {
    if (!isFinite(v)) return "-";
    if (Math.abs(v) >= 1000 || v === Math.round(v)) return Math.round(v).toLocaleString("en-US");
    return String(Number(v.toPrecision(3)));
  }
  function tick(v) {
    var a = Math.abs(v);
    if (a >= 1e6) return String(v / 1e6) + "M";
    if (a >= 1e4) return String(v / 1e3) + "k";
    return String(Number(v.toPrecision(6)));
  }
  function niceStep(span, target) {
    if (!(span > 0)) return 1;
    var raw = span / target, m = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 2.5, 5];
    for (var i = 0; i < steps.length; i++) if (raw <= steps[i] * m * (1 + 1e-9)) return steps[i] * m;
    return 10 * m;
  }
  function ticks(max, target) {
    var s = niceStep(max, target), out = [];
    for (var i = 0; i * s <= max * (1 + 1e-9); i++) out.push(i * s);
    return out;
  }
  function roundedTop(y) {
    if (!(y > 0)) return 1;
    var s = niceStep(y, 5);
    return Math.ceil(y / s - 1e-9) * s;
  }
  function esc(t) {
    return String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function n(v) { return isFinite(v) ? String(Math.round(v * 10) / 10) : "0"; }
  function rect(x, y, w, h, title) {
    var r = '<rect x="' + n(x) + '" y="' + n(y) + '" width="' + n(w) + '" height="' + n(h) + '"';
    return title ? r + "><title>" + esc(title) + "</title></rect>" : r + "/>";
  }
  function line(x1, y1, x2, y2) {
    return '<line x1="' + n(x1) + '" y1="' + n(y1) + '" x2="' + n(x2) + '" y2="' + n(y2) + '"/>';
  }
  function text(x, y, t, anchor, rotate) {
    var a = '<text x="' + n(x) + '" y="' + n(y) + '"';
    if (anchor) a += ' text-anchor="' + anchor + '"';
    if (rotate) a += ' transform="rotate(' + rotate + " " + n(x) + " " + n(y) + ')"';
    return a + ">" + esc(t) + "</text>";
  }
  function halo(color) {
    return '<g font-family="system-ui, sans-serif" font-size="10" fill="' + color +
      '" stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">';
  }
  // Per-second rates per column and layer, a column covering `per` bins.
  function columnRates(rows, layers, per, binS) {
    var out = [];
    for (var b = 0; b < rows.length; b++) {
      var c = Math.floor(b / per);
      if (!out[c]) out[c] = layers.map(function () { return 0; });
      layers.forEach(function (l, i) {
        l.labels.forEach(function (k) { out[c][i] += (rows[b][k] || 0) / (per * binS); });
      });
    }
    return out;
  }
  function sum(a) { return a.reduce(function (s, v) { return s + v; }, 0); }
  // One panel: the frame, the outages, the stacked columns, the limit lines.
  function stacked(rows, layers, e, unit, label) {
    var binS = e.bin_ms / 1000, per = Math.max(1, Math.ceil(rows.length / F.columns));
    var rates = columnRates(rows, layers, per, binS), colS = per * binS;
    var xMax = Math.max(1, rates.length) * colS, yMax = 0;
    rates.forEach(function (c) { yMax = Math.max(yMax, sum(c)); });
    [e.allowance, e.capacity].forEach(function (r) { if (r) yMax = Math.max(yMax, r.per_s * 1.15); });
    yMax = roundedTop(yMax);
    var X = function (v) { return F.left + v / xMax * (F.right - F.left); };
    var Y = function (v) { return F.bottom - v / yMax * (F.bottom - F.top); };
    var s = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + F.width + " " + F.height +
      '" role="img" aria-label="' + esc(label) + '">';
    var yt = ticks(yMax, 5), xt = ticks(xMax, 8);
    s += '<g stroke="' + C.colors.grid + '" stroke-width="1" shape-rendering="crispEdges">';
    yt.forEach(function (t) { s += line(F.left, Y(t), F.right, Y(t)); });
    s += '</g><g font-family="system-ui, sans-serif" font-size="11" fill="' + C.colors.ink + '">';
    yt.forEach(function (t) { s += text(F.left - 6, Y(t) + 4, tick(t), "end"); });
    xt.forEach(function (t) {
      var l = tick(t);
      s += text(Math.min(X(t), F.width - 2 - 3.2 * l.length), F.bottom + 15, l, "middle");
    });
    s += text((F.left + F.right) / 2, F.height - 8, "scenario time (s)", "middle");
    s += text(15, (F.top + F.bottom) / 2, unit, "middle", -90) + "</g>";
    s += '<g class="outages" fill="' + C.colors.outage + '" fill-opacity="0.09">';
    (e.outages || []).forEach(function (w) {
      var from = Math.min(w.start_ns / 1e9, xMax), to = Math.min(w.end_ns / 1e9, xMax);
      if (to > from) s += rect(X(from), F.top, X(to) - X(from), F.bottom - F.top, "outage " + w.outage);
    });
    s += "</g>";
    layers.forEach(function (l, i) {
      s += '<g class="bars" fill="' + l.color + '" shape-rendering="crispEdges">';
      rates.forEach(function (c, k) {
        if (!(c[i] > 0)) return;
        var below = sum(c.slice(0, i)), x0 = X(k * colS), x1 = Math.max(X((k + 1) * colS), x0 + 3);
        s += rect(x0, Y(below + c[i]), x1 - x0, Y(below) - Y(below + c[i]),
                  "t=" + fmt(k * colS) + " s: " + fmt(c[i]) + " " + l.name + "/s");
      });
      s += "</g>";
    });
    [[e.allowance, "declared allowance", C.colors.allowance, "6 4"],
     [e.capacity, "declared capacity", C.colors.capacity, "2 3"]].forEach(function (k) {
      if (!k[0]) return;
      var y = Y(k[0].per_s), title = k[1] + " " + k[0].text;
      s += '<g class="limit" stroke="' + k[2] + '" stroke-width="1.5" stroke-dasharray="' + k[3] +
        '"><title>' + esc(title) + "</title>" + line(F.left, y, F.right, y) + "</g>";
      s += halo(k[2]) + text(F.right - 2, y - 4, title, "end") + "</g>";
    });
    s += '<g stroke="' + C.colors.ink + '" stroke-width="1" shape-rendering="crispEdges">' +
      line(F.left, F.bottom, F.right, F.bottom) + line(F.left, F.top, F.left, F.bottom) + "</g>";
    return s + "</svg>";
  }
  function keep(kept, histogram, from) {
    kept.length = Math.min(kept.length, from);
    while (kept.length < from) kept.push([]);
    histogram.counts.forEach(function (row) { kept.push(row); });
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
  // The provider's view beside the fleet's (loadgen run --provider-admin): its own bins, on
  // the fleet's axes' limits and outages; or why it is not there.
  function drawProvider(e) {
    var p = e.provider, seen = !!p && !p.error;
    $("provider-status").textContent = !p ? "Not read: give loadgen run --provider-admin to see it." :
      p.error ? "Could not be read: " + p.error : "As its GET /admin/stats said at its scenario time " +
      fmt(p.clock_ns / 1e9) + " s.";
    $("provider-view").hidden = !seen;
    if (!seen) return;
    $("provider-figures").innerHTML = figure("provider-requests", "requests", fmt(p.requests)) +
      figure("provider-admitted", "admitted", fmt(p.admitted)) +
      figure("provider-refused", "refused", fmt(p.refused));
    var frame = {bin_ms: p.bin_ms, allowance: e.allowance, capacity: e.capacity, outages: e.outages};
    var unit = "arrivals/s at the provider";
    $("provider-arrivals-chart").innerHTML = stacked(p.arrivals_by_outcome.counts, C.outcomes, frame,
      unit, "the provider's arrivals per second by outcome");
    $("provider-waves-chart").innerHTML = stacked(p.arrivals_by_send.counts, C.sends, frame, unit,
      "the provider's arrivals per second by send number");
  }
  function drawLateness(l) {
    var ms = function (v) { return l && l.sends > 0 ? fmt(v) + " ms" : "-"; };
    $("lateness-p50").textContent = ms(l && l.p50_ms);
    $("lateness-p99").textContent = ms(l && l.p99_ms);
    $("lateness-max").textContent = ms(l && l.max_ms);
  }
  function draw(e) {
    var unit = C.fleet ? "client answers/s" : "arrivals/s at the provider";
    $("requests").textContent = fmt(e.requests);
    $("more-figures").innerHTML = figures(e);
    $("arrivals-chart").innerHTML = stacked(bins.out, C.outcomes, e, unit, "per second by outcome");
    $("waves-chart").innerHTML = stacked(bins.send, C.sends, e, C.fleet ? "client sends/s" : unit,
      "per second by send number");
    if (C.fleet) {
      drawLateness(e.lateness);
      drawProvider(e);
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
    var e = JSON.parse(m.data);
    keep(bins.out, e.arrivals_by_outcome, e.from_bin);
    keep(bins.send, e.arrivals_by_send, e.from_bin);
    last = e;
    draw(e);
    $("status").textContent = "live: event " + e.seq +
      (e.streams ? ", " + fmt(e.streams) + " dashboard(s) open" : "");
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

}  // namespace stampede
