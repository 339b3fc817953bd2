#include "html_report.hpp"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "charts.hpp"
#include "check_advice.hpp"
#include "html_escape.hpp"
#include "output_path.hpp"
#include "report_format.hpp"
#include "verdict_section.hpp"

namespace stampede {
namespace {

// No `<` or `&` in here: the page must stay well-formed XML.
constexpr const char* kStyle = R"(
:root{color-scheme:light}
body{margin:0;background:#f4f5f7;color:#1f2328;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1240px;margin:0 auto;padding:18px 22px 36px}
.kicker{color:#5b6270;font-size:12px;text-transform:uppercase;letter-spacing:.06em;margin:0}
h1{font-size:24px;margin:2px 0 4px}
.desc{color:#3d4451;max-width:920px;margin:0}
section{background:#fff;border:1px solid #e1e4e8;border-radius:8px;padding:12px 18px 14px;margin:14px 0}
h2{font-size:17px;margin:0 0 2px}
.note{color:#5b6270;margin:0 0 6px;max-width:940px}
.legend{display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px;color:#3d4451;margin:0 0 6px}
.legend span{display:inline-flex;align-items:center;gap:4px}
.legend svg{width:18px;height:12px}
.grid{display:grid;gap:8px 22px}
figure{margin:0;min-width:0}
.one figure{max-width:980px}
figcaption{font-weight:600;font-size:14px;margin:2px 0 0}
figcaption small{font-weight:400;color:#5b6270;font-size:12px}
figure svg{display:block;width:100%;height:auto}
.wide{overflow-x:auto}
table{border-collapse:collapse;font-size:13px;width:100%}
th,td{text-align:left;padding:5px 10px;border-bottom:1px solid #eceef1;vertical-align:top}
th{color:#5b6270;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.num,td:first-child{white-space:nowrap}
td.key{color:#3d4451;font-family:ui-monospace,monospace;font-size:12px}
.pass{color:#1a7f37;font-weight:600}
.fail{color:#cf222e;font-weight:600}
tr.diff td{background:#fff6dc}
.verdict.failed{border-left:5px solid #cf222e}
.verdict.held{border-left:5px solid #1a7f37}
.verdict ul{margin:6px 0 4px;padding-left:20px}
.verdict li{margin:2px 0}
.verdict code{font-family:ui-monospace,monospace;font-size:13px;white-space:nowrap}
.change{margin:0 0 10px;max-width:980px}
.zoom{margin-top:4px}
.zoom-note{color:#5b6270;font-size:12px;margin:0}
.banner{background:#fff1f0;border:1px solid #f3b4ae;border-radius:8px;color:#82071e;font-weight:600;padding:10px 16px;margin:14px 0}
footer{color:#5b6270;font-size:12px;margin-top:12px}
)";

using json = nlohmann::json;

std::string escaped(std::string_view text) {
  return html_escape(text);
}

// The distinct values of f over the runs, in first-seen order.
template <class F>
std::vector<std::string> distinct(const std::vector<Results>& runs, F f) {
  std::vector<std::string> out;
  for (const auto& r : runs) {
    auto v = f(r);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
  }
  return out;
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

// Counted as the assertion table shows them: one row per check.
std::pair<int, int> verdict_counts(const Results& r) {
  const auto shown = distinct_verdicts(r.verdicts);
  const auto passed =
      std::count_if(shown.begin(), shown.end(), [](const Verdict& v) { return v.passed; });
  return {static_cast<int>(passed),
          static_cast<int>(shown.size() - static_cast<std::size_t>(passed))};
}

std::string busiest_text(const Summary& s) {
  if (!(s.peak_arrivals > 0)) return "no arrivals";
  return format_count(s.peak_arrivals) + "/s at t=" + format_count(s.peak_second) + " s";
}

std::string header(const std::vector<Results>& runs, const std::vector<std::string>& labels) {
  const auto names = distinct(runs, [](const Results& r) { return r.scenario.name; });
  const auto engines = distinct(runs, [](const Results& r) { return r.engine; });
  const auto descriptions = distinct(runs, [](const Results& r) { return r.scenario.description; });
  std::string kicker = "stampede report \u00b7 " + joined(engines, ", ");
  if (runs.size() > 1) kicker += " \u00b7 " + std::to_string(runs.size()) + " runs compared";
  std::string out =
      "<header>" + html_element("p", kicker, "kicker") + html_element("h1", joined(names, " / "));
  if (runs.size() > 1) out += html_element("p", joined(labels, " vs "), "desc");
  if (descriptions.size() == 1 && !descriptions[0].empty()) {
    out += html_element("p", descriptions[0], "desc");
  }
  return out + "</header>\n";
}

// An exec fleet ran the user's program, whose policy is its own, not the scenario's.
std::string strategy_of(const Results& r) {
  return r.engine == "exec" ? "the program's own"
                            : std::string(to_string(r.scenario.fleet.strategy));
}

// "1 h 2 min 3.4 s" is for people; the wall duration here is read beside scenario times, so it
// stays in seconds.
std::string wall_text(double wall_s) {
  return format_count(wall_s) + " s";
}

std::string time_scale_text(double scale) {
  if (scale == 1) return "1 (real time)";
  return format_count(scale) + " (a wall second is " + format_count(1 / scale) +
         " scenario seconds)";
}

// The answers' statuses as loadgen's clients read them; an exec fleet's program reads its own,
// so its report says so, and gives the provider's record of them when it was taken.
std::string statuses_text(const Results& r) {
  std::vector<std::string> parts;
  for (const auto& [status, n] : r.recording.statuses)
    parts.push_back(std::to_string(status) + ": " + format_count(static_cast<double>(n)));
  if (!parts.empty()) return joined(parts, ", ");
  if (r.engine != "exec") return "none";
  const std::string own = "not read by loadgen: the program reads its own answers";
  if (!r.provider_side) return own + ", and the provider's record was not taken";
  const auto& h = r.recording.provider_by_outcome;
  for (std::size_t label = 0; label < h.labels(); ++label) {
    std::int64_t n = h.overflow(label);
    for (std::size_t b = 0; b < h.bins(); ++b) n += h.at(b, label);
    if (n == 0) continue;
    const auto name = static_cast<Outcome>(label) == Outcome::kOk
                          ? std::string("2xx")
                          : std::string(kOutcomeNames[label]);
    parts.push_back(name + ": " + format_count(static_cast<double>(n)));
  }
  if (parts.empty()) return own + "; the provider recorded no arrival";
  return own + "; the provider answered " + joined(parts, ", ");
}

// Where and when each fleet ran on the wall, and a banner for one stopped early: its numbers
// are of a run cut short. Every value comes from the results document.
std::string context_section(const std::vector<Results>& runs,
                            const std::vector<std::string>& labels) {
  if (std::none_of(runs.begin(), runs.end(), [](const Results& r) { return r.context; })) return "";
  std::string out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& c = runs[i].context;
    if (!c || c->stopped_by.empty()) continue;
    std::string text = "Stopped early";
    if (runs.size() > 1) text += " (" + labels[i] + ")";
    text += ": by " + c->stopped_by + " after " + wall_text(c->wall_s) + " on the wall";
    const auto unfinished = runs[i].recording.unfinished;
    text += unfinished > 0 ? ", with " + format_count(static_cast<double>(unfinished)) +
                                 " items unfinished. These numbers are of a run cut short."
                           : ", with every item finished.";
    out += "<p class=\"banner\" id=\"stopped-early\">" + escaped(text) + "</p>\n";
  }
  using Field = std::string (*)(const Results&);
  const std::vector<std::pair<const char*, Field>> fields{
      {"target", [](const Results& r) { return r.context->target; }},
      {"started (UTC)", [](const Results& r) { return r.context->started_utc; }},
      {"wall duration", [](const Results& r) { return wall_text(r.context->wall_s); }},
      {"time scale", [](const Results& r) { return time_scale_text(r.context->time_scale); }},
      {"stopped early",
       [](const Results& r) {
         return r.context->stopped_by.empty() ? std::string("no") : "by " + r.context->stopped_by;
       }},
      {"HTTP statuses read", [](const Results& r) { return statuses_text(r); }},
      {"stampede version", [](const Results& r) { return r.stampede_version; }},
  };
  out += "<section id=\"context\"><h2>Run</h2>" +
         html_element("p", "Where and when the fleet ran; the target is shown without credentials.",
                      "note") +
         "<div class=\"wide\"><table><thead><tr><th>field</th>";
  if (runs.size() > 1) {
    for (const auto& label : labels) out += html_element("th", label);
  } else {
    out += "<th>value</th>";
  }
  out += "</tr></thead><tbody>";
  for (const auto& [name, value] : fields) {
    out += "<tr>" + html_element("td", name, "key");
    for (const auto& r : runs) out += html_element("td", r.context ? value(r) : "-");
    out += "</tr>";
  }
  return out + "</tbody></table></div></section>\n";
}

std::string summary_table(const std::vector<Results>& runs,
                          const std::vector<std::string>& labels) {
  std::string out =
      "<section id=\"summary\"><h2>Summary</h2><div class=\"wide\"><table><thead><tr>"
      "<th>run</th><th>strategy</th><th class=\"num\">clients</th><th class=\"num\">requests</th>"
      "<th class=\"num\">amplification</th><th class=\"num\">busiest second</th>"
      "<th class=\"num\">peak ratio</th>"
      "<th class=\"num\">drain time</th><th class=\"num\">p99 item latency</th>"
      "<th class=\"num\">delivered</th><th class=\"num\">dead letters</th>"
      "<th>assertions</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const auto& s = r.summary;
    auto num = [](const std::string& text) { return html_element("td", text, "num"); };
    std::string drain = format_seconds(s.drain_s);
    if (s.unfinished > 0) drain += " (" + format_count(s.unfinished) + " unfinished)";
    const auto [passed, failed] = verdict_counts(r);
    std::string verdicts = "none";
    std::string verdict_class;
    if (!r.verdicts.empty()) {
      verdicts = std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
      verdict_class = failed ? "fail" : "pass";
    }
    out +=
        "<tr>" + html_element("td", labels[i]) + html_element("td", strategy_of(r)) +
        num(format_count(static_cast<double>(r.scenario.fleet.clients))) +
        num(format_count(s.requests)) + num(format_count(s.amplification)) + num(busiest_text(s)) +
        num(s.peak_ratio > 0 ? format_count(s.peak_ratio) + "\u00d7" : "-") + num(drain) +
        num(format_seconds(s.p99_s)) +
        num(format_count(s.delivered) + " of " + format_count(s.items)) +
        num(format_count(s.dead_lettered)) + html_element("td", verdicts, verdict_class) + "</tr>";
  }
  return out + "</tbody></table></div></section>\n";
}

std::string caption(const Results& r, const std::string& label) {
  const auto& s = r.summary;
  std::string facts = format_count(s.requests) + " requests";
  if (s.peak_ratio > 0)
    facts += " \u00b7 peak " + format_count(s.peak_ratio) + "\u00d7 the allowance";
  facts += " \u00b7 last through at " + format_seconds(s.drain_s);
  return "<figcaption>" + escaped(label) + " <small>" + escaped(facts) + "</small></figcaption>";
}

std::string legend(const std::vector<LegendEntry>& entries) {
  std::string out = "<div class=\"legend\">";
  for (const auto& entry : entries) {
    out += "<span>" + legend_swatch(entry) + escaped(entry.name) + "</span>";
  }
  return out + "</div>";
}

std::string grid_open(std::size_t runs) {
  const auto columns = std::min<std::size_t>(runs, 3);
  return "<div class=\"grid" + std::string(runs == 1 ? " one" : "") +
         "\" style=\"grid-template-columns:repeat(" + std::to_string(columns) +
         ",minmax(0,1fr))\">";
}

// The same panel again, zoomed to the rest of the chart: a spike on the shared scale flattens
// it (a fix's low tail beside a storm's bursts).
std::string zoomed_panel(const std::string& svg) {
  return "<div class=\"zoom\">" +
         html_element("p",
                      "Zoomed in on the rest: the columns taller than this scale are cut at its "
                      "top (\u25b2); their tooltips give their height.",
                      "zoom-note") +
         svg + "</div>";
}

std::string chart_sections(const std::vector<Results>& runs,
                           const std::vector<std::string>& labels) {
  const auto column_ns = column_ns_for(runs);
  std::string out;
  for (const auto& chart : report_charts()) {
    if (std::none_of(runs.begin(), runs.end(), chart.applies)) continue;
    const auto scale = shared_scale(chart, runs, column_ns);
    const auto zoom = tail_zoom(chart, runs, scale);
    out += "<section id=\"" + escaped(chart.id) + "\">" + html_element("h2", chart.title) +
           html_element("p", chart.note, "note") + legend(chart.legend(runs)) +
           grid_open(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      out += "<figure>";
      if (runs.size() > 1) out += caption(runs[i], labels[i]);
      out += chart.applies(runs[i]) ? chart.draw(runs[i], scale)
                                    : placeholder_chart("not recorded in this run");
      if (zoom && chart.applies(runs[i])) out += zoomed_panel(chart.draw(runs[i], *zoom));
      out += "</figure>";
    }
    out += "</div></section>\n";
  }
  return out;
}

std::string assertion_section(const std::vector<Results>& runs,
                              const std::vector<std::string>& labels) {
  std::string out = "<section id=\"assertions\"><h2>Assertions</h2>";
  std::vector<std::string> texts;
  for (const auto& r : runs) {
    for (const auto& v : r.verdicts) {
      if (std::find(texts.begin(), texts.end(), v.text) == texts.end()) texts.push_back(v.text);
    }
  }
  if (texts.empty())
    return out + html_element("p", "No assertions were checked.", "note") + "</section>\n";
  out += html_element("p",
                      "Each cell is the verdict and the measured value; what to change for a "
                      "failed one opens this report.",
                      "note") +
         "<div class=\"wide\"><table><thead><tr><th>assertion</th>";
  for (const auto& label : labels) out += html_element("th", label);
  out += "</tr></thead><tbody>";
  for (const auto& text : texts) {
    out += "<tr>" + html_element("td", text, "key");
    for (const auto& r : runs) {
      const auto v = std::find_if(r.verdicts.begin(), r.verdicts.end(),
                                  [&](const Verdict& each) { return each.text == text; });
      if (v == r.verdicts.end()) {
        out += html_element("td", "not checked");
      } else {
        out += "<td><span class=\"" + std::string(v->passed ? "pass" : "fail") + "\">" +
               verdict_label(*v) + "</span> " + escaped(format_count(v->actual)) + "</td>";
      }
    }
    out += "</tr>";
  }
  return out + "</tbody></table></div></section>\n";
}

std::string display(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& item : v) parts.push_back(display(item));
    return parts.empty() ? "none" : joined(parts, ", ");
  }
  if (v.is_null()) return "none";
  return v.dump();
}

// The scenario as run, one row per field in the file's own spelling.
std::vector<std::pair<std::string, std::string>> scenario_rows(const Results& r) {
  const json j = to_json(r.scenario);
  std::vector<std::pair<std::string, std::string>> rows;
  for (const char* key : {"name", "description"}) {
    if (j.contains(key)) rows.emplace_back(key, display(j[key]));
  }
  for (const char* section : {"provider", "fleet"}) {
    if (!j.contains(section)) continue;
    for (const auto& [key, value] : j[section].items()) {
      // An exec fleet is the user's program: of the fleet's fields only its size is true.
      if (r.engine == "exec" && std::string_view(section) == "fleet" && key != "clients") continue;
      rows.emplace_back(std::string(section) + "." + key, display(value));
    }
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "name" && key != "description" && key != "provider" && key != "fleet") {
      rows.emplace_back(key, display(value));
    }
  }
  rows.emplace_back("engine", r.engine);
  rows.emplace_back("stampede version", r.stampede_version);
  return rows;
}

std::string scenario_section(const std::vector<Results>& runs,
                             const std::vector<std::string>& labels) {
  std::vector<std::vector<std::pair<std::string, std::string>>> per_run;
  std::vector<std::string> keys;
  for (const auto& r : runs) {
    per_run.push_back(scenario_rows(r));
    for (const auto& [key, value] : per_run.back()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  std::string out = "<section id=\"scenario\"><h2>Scenario as run</h2>";
  if (runs.size() > 1)
    out += html_element("p", "Rows where the runs differ are highlighted.", "note");
  out += "<div class=\"wide\"><table><thead><tr><th>field</th>";
  for (const auto& label : labels) out += html_element("th", label);
  out += "</tr></thead><tbody>";
  for (const auto& key : keys) {
    std::vector<std::string> values;
    for (const auto& rows : per_run) {
      const auto it =
          std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return row.first == key; });
      values.push_back(it == rows.end() ? "-" : it->second);
    }
    const bool differs =
        std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end();
    out += differs ? "<tr class=\"diff\">" : "<tr>";
    out += html_element("td", key, "key");
    for (const auto& v : values) out += html_element("td", v);
    out += "</tr>";
  }
  return out + "</tbody></table></div></section>\n";
}

}  // namespace

std::string_view report_style() {
  return kStyle;
}

std::string default_label(const Results& r) {
  return r.engine == "exec" ? "exec" : strategy_of(r);
}

std::string render_report(const std::vector<Results>& runs,
                          const std::vector<std::string>& given_labels) {
  std::vector<std::string> labels = given_labels;
  labels.resize(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (labels[i].empty()) labels[i] = default_label(runs[i]);
  }
  const auto names = distinct(runs, [](const Results& r) { return r.scenario.name; });
  std::string title = "stampede \u00b7 " + joined(names, " / ");
  if (runs.size() > 1) title += " \u00b7 " + joined(labels, " vs ");

  std::string out =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n" +
      html_element("title", title) + "\n<style>" + kStyle + "</style>\n</head>\n<body>\n<main>\n";
  if (runs.empty()) {
    out += "<header>" + html_element("p", "stampede report", "kicker") +
           html_element("h1", "No runs") +
           html_element("p", "There were no results to show.", "desc") + "</header>\n";
  } else {
    out += header(runs, labels) + verdict_section(runs, labels) + context_section(runs, labels) +
           summary_table(runs, labels) + chart_sections(runs, labels) +
           assertion_section(runs, labels) + scenario_section(runs, labels);
  }
  out += "<footer>" +
         escaped("Written by stampede " + std::string(kVersion) +
                 ". One self-contained file: no script, no external resource. Times are scenario "
                 "time from the start of the run; hover over a chart for its numbers.") +
         "</footer>\n</main>\n</body>\n</html>\n";
  return out;
}

std::optional<std::string> write_report(const Results& results, const std::string& path) {
  return write_output(path, render_report({results}, {default_label(results)}));
}

std::string default_report_path(const std::string& results_path) {
  constexpr std::string_view kJson = ".json";
  const auto slash = results_path.find_last_of('/');
  const auto name_start = slash == std::string::npos ? 0 : slash + 1;
  if (results_path.size() > name_start + kJson.size() && results_path.ends_with(kJson)) {
    return results_path.substr(0, results_path.size() - kJson.size()) + ".html";
  }
  return results_path + ".html";
}

}  // namespace stampede
