#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "charts.hpp"
#include "html_escape.hpp"
#include "html_report.hpp"
#include "report_format.hpp"
#include "report_test_support.hpp"
#include "sim/sim_engine.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"
#include "terminal_summary.hpp"

using namespace stampede;
using namespace report_test;
using namespace support;

namespace {

const std::string kHostile = "<script>alert(1)</script>";

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The footer names the version that wrote the page; the goldens must not change with it.
std::string without_version(std::string html) {
  const std::string written = "Written by stampede " + std::string(kVersion) + ".";
  const auto at = html.find(written);
  if (at != std::string::npos) html.replace(at, written.size(), "Written by stampede VERSION.");
  return html;
}

nlohmann::json checked(const std::string& html, const TempDir& dir, const std::string& name) {
  const auto path = dir.file(name);
  write_file(path, html);
  std::string error;
  auto found = check_xhtml(path, &error);
  REQUIRE_MESSAGE(found.is_object(), "not well-formed XML: " << error);
  CHECK(found["root"] == "{http://www.w3.org/1999/xhtml}html");
  CHECK(found["scripts"] == 0);
  CHECK(found["external"].empty());
  return found;
}

bool has_python() {
  return !find_program("python3").empty();
}

}  // namespace

TEST_CASE("the report of the fixed-seed storm matches its golden file") {
  const auto fj = golden_results("storm_full_jitter.results.json");
  const auto exp = golden_results("storm_exponential.results.json");
  check_golden("storm_full_jitter.html", without_version(render_report({fj}, {"full-jitter"})));
  check_golden("storm_comparison.html",
               without_version(render_report({exp, fj}, {"exponential", "full-jitter"})));
  // A live run against a fakeprovider standing in for staging: no admin API, so the clients'
  // view alone (see golden/README.md for how it was made).
  check_golden("staging_run.html",
               without_version(
                   render_report({golden_results("staging_run.results.json")}, {"full-jitter"})));
  // A live streamed run (--stream, some streams broken): time to first token and the streams
  // open over time.
  check_golden(
      "streamed_run.html",
      without_version(render_report({golden_results("streamed_run.results.json")}, {"streamed"})));
}

TEST_CASE("rendering is deterministic") {
  const auto fj = golden_results("storm_full_jitter.results.json");
  CHECK(render_report({fj}, {"a"}) == render_report({fj}, {"a"}));
}

TEST_CASE("the report is well-formed XHTML with its charts, sections and tooltips" *
          doctest::skip(skip_unless_ci(!has_python())) * doctest::test_suite("long")) {
  TempDir dir;
  const auto exp = golden_results("storm_exponential.results.json");
  const auto fj = golden_results("storm_full_jitter.results.json");
  const auto single = checked(render_report({fj}, {"full-jitter"}), dir, "single.html");
  CHECK(single["sections"] ==
        nlohmann::json({"verdict", "summary", "arrivals", "waves", "retries", "backoff", "latency",
                        "attempts", "assertions", "scenario"}));
  CHECK(single["h1"] == "storm");
  CHECK(single["svg_tooltips"].get<int>() > 50);
  CHECK(single["svg_texts"].get<int>() > 50);  // axis ticks and labels

  const auto both =
      checked(render_report({exp, fj}, {"exponential", "full-jitter"}), dir, "comparison.html");
  CHECK(both["title"] == "stampede \u00b7 storm \u00b7 exponential vs full-jitter");
  // Small multiples: one panel per run in every chart section.
  CHECK(single["figures"] == 6);
  CHECK(both["figures"] == 12);
}

TEST_CASE("the report shows the numbers of its results file" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  const auto j = nlohmann::json::parse(
      read_file(source_path("tests/report/golden/storm_full_jitter.results.json")));
  const auto& s = j["summary"];
  REQUIRE(s["requests"] == 7508);
  REQUIRE(s["amplification"] == 7.508);
  REQUIRE(s["peak_ratio"] == 0.49);
  REQUIRE(s["peak_arrivals"] == 49);
  REQUIRE(s["peak_second"] == 33);
  REQUIRE(s["drain_s"] == 89.727);
  REQUIRE(s["p99_s"] == 85.094);
  REQUIRE(j["scenario"]["fleet"]["seed"] == 1);
  const auto text =
      checked(render_report({golden_results("storm_full_jitter.results.json")}, {"fj"}), dir,
              "fj.html")["text"]
          .get<std::string>();
  for (const char* shown : {"7,508",
                            "7.51",
                            "0.49\u00d7",
                            "49/s at t=33 s",
                            "89.7 s",
                            "85.1 s",
                            "1,000 of 1,000",
                            "4 passed, 0 failed",
                            "PASS",
                            "peak_ratio <= 2",
                            "drain_s <= 120",
                            "100/s",
                            "fixed-window",
                            "0s-30s:503",
                            "full-jitter",
                            "simulate",
                            "stampede version",
                            "0.1.0",
                            "fleet.seed",
                            "provider.seed",
                            "Item latency",
                            "p99 85.1 s"}) {
    CAPTURE(shown);
    CHECK(text.find(shown) != std::string::npos);
  }
}

TEST_CASE("a fixed-seed simulation from the real binary gives a report with its numbers" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  const auto results_path = dir.file("storm.json");
  const auto sim = run("timeout 60 " + quote(bin_path("loadgen")) + " simulate --scenario " +
                       quote(source_path("examples/storm.json")) +
                       " --strategy exponential --seed 7 --quiet --out " + quote(results_path));
  REQUIRE_MESSAGE((sim.exit_code == 0 || sim.exit_code == 1), sim.output);
  const auto loaded = load_results_file(results_path);
  REQUIRE_MESSAGE(loaded, loaded.error());
  const auto& s = loaded->summary;
  const auto text =
      checked(render_report({*loaded}, {}), dir, "storm.html")["text"].get<std::string>();
  for (const auto& shown : {format_count(s.requests), format_count(s.amplification),
                            format_count(s.peak_ratio) + "\u00d7", format_seconds(s.drain_s),
                            format_seconds(s.p99_s), format_count(s.dead_lettered)}) {
    CAPTURE(shown);
    CHECK(text.find(shown) != std::string::npos);
  }
  CHECK(s.requests == 10500);  // the seeds' reference storm, exactly
  CHECK(text.find("10,500") != std::string::npos);
}

TEST_CASE("a hostile label, scenario name or assertion shows as text" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  auto r = golden_results("storm_full_jitter.results.json");
  r.scenario.name = kHostile;
  r.scenario.description = kHostile + " & \"quotes\"";
  r.scenario.provider.tenant_header = kHostile;
  r.verdicts.push_back({kHostile, false, 1, 2, {}});
  const auto html = render_report({r, r}, {kHostile, "ok"});
  CHECK(html.find("<script") == std::string::npos);
  CHECK(count_of(html, "&lt;script&gt;alert(1)&lt;/script&gt;") >= 5);
  const auto found = checked(html, dir, "hostile.html");
  CHECK(found["h1"] == kHostile);
  CHECK(found["text"].get<std::string>().find(kHostile + " & \"quotes\"") != std::string::npos);
}

TEST_CASE("control characters and broken UTF-8 in a name still give a well-formed page" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  auto r = golden_results("storm_full_jitter.results.json");
  r.scenario.name = std::string("nul\0bell\x07 bad\xFF utf8\xC3", 20);
  const auto found = checked(render_report({r}, {"\x01label"}), dir, "broken.html");
  CHECK(found["h1"] == "nul\uFFFDbell\uFFFD bad\uFFFD utf8\uFFFD");
}

TEST_CASE("a live run adds client sends against provider arrivals, and wake lateness" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  auto r = golden_results("storm_full_jitter.results.json");
  const auto simulated = render_report({r}, {});
  CHECK(simulated.find("id=\"fidelity\"") == std::string::npos);
  CHECK(simulated.find("id=\"lateness\"") == std::string::npos);

  auto lost = r;  // a simulation whose two sides disagree shows the comparison too
  lost.recording.client_by_outcome.add(40 * kNsPerSec, 0, 5);
  CHECK(render_report({lost}, {}).find("id=\"fidelity\"") != std::string::npos);

  r.engine = "run";
  for (std::int64_t v = 1000; v < 20'000'000; v = v * 5 / 4 + 1)
    r.recording.lateness_ns.record(v, 3);
  const auto found = checked(render_report({r}, {}), dir, "live.html");
  CHECK(found["sections"] == nlohmann::json({"verdict", "summary", "arrivals", "waves", "retries",
                                             "statuses", "fidelity", "backoff", "latency",
                                             "attempts", "lateness", "assertions", "scenario"}));
  const auto text = found["text"].get<std::string>();
  for (const char* shown : {"1 \u00b5s", "10 \u00b5s", "1 ms", "10 ms", "% of sends"}) {
    CAPTURE(shown);
    CHECK(text.find(shown) != std::string::npos);
  }
}

TEST_CASE("empty input still gives a valid page" * doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  const auto none = checked(render_report({}, {}), dir, "none.html");
  CHECK(none["h1"] == "No runs");
  Results empty;
  empty.engine = "simulate";
  const auto blank = checked(render_report({empty}, {}), dir, "blank.html");
  CHECK(blank["text"].get<std::string>().find("no arrivals recorded") != std::string::npos);
}

TEST_CASE("a chart a run did not record gets a placeholder panel beside the runs that did") {
  auto fj = golden_results("storm_full_jitter.results.json");
  Results empty;
  empty.engine = "simulate";
  const auto html = render_report({fj, empty}, {"fj", "empty"});
  // waves, retries, backoff, latency, attempts
  CHECK(count_of(html, ">not recorded in this run<") == 5);
}

TEST_CASE("the report's size does not grow with the run's length or traffic") {
  // A day and a week of one-second bins, the week with a thousand times the traffic.
  auto long_run = [](std::int64_t seconds, std::int64_t per_second) {
    Results r;
    r.engine = "simulate";
    r.provider_side = true;
    for (std::int64_t t = 0; t < seconds; ++t) {
      const auto at = t * kNsPerSec;
      r.recording.provider_by_outcome.add(at, t % 7 ? 0 : 1, per_second);
      r.recording.client_by_outcome.add(at, t % 7 ? 0 : 1, per_second);
      r.recording.provider_by_send.add(at, static_cast<std::size_t>(t % 16), per_second);
      r.recording.backoff.add(at, 0, per_second);
      r.recording.backoff.add(at + kNsPerSec / 2, 1, per_second);
    }
    for (std::int64_t v = 1; v < 1'000'000'000; v = v * 3 / 2 + 1) {
      r.recording.item_latency_ns.record(v * 100, per_second);
      r.recording.sends_per_item.record(v % 20 + 1, per_second);
    }
    r.scenario.provider.allowance = Rate{100000, kNsPerSec};
    return r;
  };
  // A sanitizer tree plays two days for the week: past the first day's bins as the week is, at
  // a third of the cost (56 s of TSan's case time for the week).
  const std::int64_t week_days = kSanitized ? 2 : 7;
  const auto day = render_report({long_run(24 * 3600, 1000)}, {});
  const auto week = render_report({long_run(week_days * 24 * 3600, 1'000'000)}, {});
  CHECK(week.size() < 2'000'000);
  CHECK(week.size() < day.size() * 11 / 10);
  CHECK(column_ns_for({long_run(24 * 3600, 1)}) == 144 * kNsPerSec);
  // A week is binned for its first day only (BinnedCounts::kMaxBins), the rest past the last
  // bin: its columns are the day's.
  CHECK(column_ns_for({long_run(week_days * 24 * 3600, 1)}) == 144 * kNsPerSec);
  // Each column holds at most one rect per series and one for its tooltip.
  CHECK(count_of(week, "<rect") < 3 * kMaxColumns * (kSendLabels + 1));
}

TEST_CASE("arrivals past the last bin are said, in the chart and the terminal summary") {
  // A hostile Retry-After followed exactly: the retries land past the histogram's last bin.
  Results r;
  r.engine = "simulate";
  r.provider_side = true;
  r.recording.provider_by_outcome.add(std::numeric_limits<std::int64_t>::max(), 0, 2);
  const auto html = render_report({r}, {});
  CHECK(html.find("all 2 after t=86,400 s, past the last bin") != std::string::npos);
  CHECK(html.size() < 200'000);
  const auto text = format_terminal_summary(r);
  CHECK(text.find("t>=86400: 2 (past the last bin)") != std::string::npos);
}

TEST_CASE("a trace run's report draws the trace's arrivals beside first sends and retries") {
  // Per second: the trace 3, 0, 5; the fleet's first sends 3, 0, 4 (one dropped); retries
  // 0, 2, 1.
  Results r;
  r.engine = "simulate";
  r.provider_side = true;
  r.recording.trace.emplace();
  const std::vector<std::array<std::int64_t, 3>> seconds{{3, 3, 0}, {0, 0, 2}, {5, 4, 1}};
  for (std::size_t s = 0; s < seconds.size(); ++s) {
    const auto at = static_cast<std::int64_t>(s) * kNsPerSec;
    const auto [trace, first, retries] = seconds[s];
    r.recording.trace->arrivals.add(at, 0, trace);
    r.recording.client_by_send.add(at, 0, first);
    r.recording.client_by_send.add(at, 1, retries);
    r.recording.provider_by_outcome.add(at, 0, first + retries);
  }
  const TempDir dir;
  const auto html = render_report({r}, {"trace"});
  checked(html, dir, "trace.html");
  const auto start = html.find("<section id=\"trace\">");
  REQUIRE(start != std::string::npos);
  const auto section = html.substr(start, html.find("</section>", start) - start);
  CHECK(section.find("The trace against the fleet") != std::string::npos);
  // Three lines, the trace's dashed, each a group of its own, and a tooltip per second.
  CHECK(count_of(section, "<polyline") == 3);
  CHECK(section.find("<title>trace arrivals per second</title>") != std::string::npos);
  CHECK(section.find("<title>first sends per second</title>") != std::string::npos);
  CHECK(section.find("<title>retries per second</title>") != std::string::npos);
  CHECK(count_of(section, "stroke-dasharray=\"4 2\"") >= 1);
  CHECK(section.find("t=0 s: trace arrivals 3/s, first sends 3/s, retries 0/s") !=
        std::string::npos);
  CHECK(section.find("t=2 s: trace arrivals 5/s, first sends 4/s, retries 1/s") !=
        std::string::npos);
  // A run of another workload has no trace: no such chart, not even a placeholder.
  const auto fj = golden_results("storm_full_jitter.results.json");
  CHECK(render_report({fj}, {"fj"}).find("<section id=\"trace\">") == std::string::npos);
}

TEST_CASE("a streamed run's report draws time to first token and stream duration") {
  Results r;
  r.engine = "live";
  auto& s = r.recording.streams;
  for (const std::int64_t ms : {200, 210, 250, 900}) s.first_token_ns.record(ms * kNsPerMs);
  for (const std::int64_t ms : {2200, 2300, 2400}) s.duration_ns.record(ms * kNsPerMs);
  s.completed = 3;
  s.broken = 1;
  s.tokens = 130;
  // Open from 0.5 s, 1.2 s, 1.4 s and 1.5 s to 3.5 s, 2.6 s, 3.2 s and 4.1 s: 1, 4, 3, 1 open
  // at the ends of seconds 0 to 3.
  for (const auto& [from, to] :
       std::vector<std::pair<double, double>>{{0.5, 3.5}, {1.2, 2.6}, {1.4, 3.2}, {1.5, 4.1}})
    s.record_open(static_cast<std::int64_t>(from * kNsPerSec),
                  static_cast<std::int64_t>(to * kNsPerSec));
  const TempDir dir;
  const auto html = render_report({r}, {"streamed"});
  checked(html, dir, "streams.html");
  const auto open_at = html.find("<section id=\"open-streams\">");
  REQUIRE(open_at != std::string::npos);
  // Beside the time to first token: the next section.
  CHECK(open_at > html.find("<section id=\"streams\">"));
  const auto open = html.substr(open_at, html.find("</section>", open_at) - open_at);
  CHECK(open.find("Open streams over time") != std::string::npos);
  CHECK(open.find(": 1 streams open</title>") != std::string::npos);
  CHECK(open.find(": 4 streams open</title>") != std::string::npos);
  CHECK(open.find(": 3 streams open</title>") != std::string::npos);
  CHECK(count_of(open, "streams open</title>") == 4);
  const auto start = html.find("<section id=\"streams\">");
  REQUIRE(start != std::string::npos);
  const auto section = html.substr(start, html.find("</section>", start) - start);
  CHECK(section.find("Time to first token") != std::string::npos);
  CHECK(count_of(section, "<polyline") == 2);
  CHECK(section.find("<title>time to first token: p50 ") != std::string::npos);
  CHECK(section.find("max 900 ms (4 streams)</title>") != std::string::npos);
  CHECK(section.find("<title>stream duration (completed): p50 ") != std::string::npos);
  CHECK(section.find("(3 streams)</title>") != std::string::npos);
  // A run that streamed nothing has no such chart, not even a placeholder.
  const auto fj = golden_results("storm_full_jitter.results.json");
  CHECK(render_report({fj}, {"fj"}).find("<section id=\"streams\">") == std::string::npos);
  CHECK(render_report({fj}, {"fj"}).find("<section id=\"open-streams\">") == std::string::npos);
}

TEST_CASE(
    "the max_tokens trap's report: refusals by limit, reserved against settled, the summary") {
  const auto scenario = load_scenario_file(source_path("examples/llm_max_tokens.json"));
  REQUIRE_MESSAGE(scenario, scenario.error());
  const Results r = simulate(*scenario);
  const TempDir dir;
  const auto html = render_report({r}, {"trap"});
  checked(html, dir, "token_limits.html");
  const auto section = [&](const std::string& id) {
    const auto at = html.find("<section id=\"" + id + "\">");
    REQUIRE_MESSAGE(at != std::string::npos, id);
    return html.substr(at, html.find("</section>", at) - at);
  };
  const auto refusals = section("refusals-by-limit");
  CHECK(refusals.find("Refusals per second, by limit") != std::string::npos);
  // The first wave: 160 of the 200 refused at t=0, every one by the output-token limit.
  CHECK(refusals.find("t=0 s: 160 refusals/s\n  output tokens: 160</title>") != std::string::npos);
  CHECK(refusals.find("requests:") == std::string::npos);
  const auto output = section("output-tokens");
  CHECK(output.find("Output tokens reserved and settled") != std::string::npos);
  CHECK(output.find("declared output-token allowance 163840/min = ") != std::string::npos);
  // At t=0 the first 40 reserve the whole allowance; at 2.98 s they are settled at 100 each.
  CHECK(output.find("t=0 s: output tokens reserved (max_tokens, at admission) 163,840/s") !=
        std::string::npos);
  CHECK(output.find("t=2 s: output tokens reserved (max_tokens, at admission) 0/s, output tokens "
                    "settled (written; the rest refunded) 4,000/s") != std::string::npos);
  // No input-token or token allowance in force: no input chart.
  CHECK(html.find("<section id=\"input-tokens\">") == std::string::npos);
  const auto text = format_terminal_summary(r);
  CHECK(text.find("refused by: output tokens 400\n") != std::string::npos);
  CHECK(text.find("tokens: 200 LLM requests admitted") != std::string::npos);
  CHECK(text.find("output reserved 819200, settled 20000 (2.4% of reserved)") != std::string::npos);
  // An answer admitted whose output was never read (live: its usage past the body kept) makes
  // the share meaningless: the summary counts those answers instead.
  Results unread = r;
  unread.recording.tokens.record_admitted(0, 9, 4096);
  const auto unread_text = format_terminal_summary(unread);
  CHECK(unread_text.find("output reserved 823296, settled 20000 (1 answers' output not read: no "
                         "usage in the body kept)\n") != std::string::npos);
  CHECK(unread_text.find("% of reserved") == std::string::npos);
  // A run that met no token limit has none of them.
  const auto fj = golden_results("storm_full_jitter.results.json");
  const auto plain = render_report({fj}, {"fj"});
  CHECK(plain.find("<section id=\"refusals-by-limit\">") == std::string::npos);
  CHECK(plain.find("<section id=\"output-tokens\">") == std::string::npos);
  CHECK(format_terminal_summary(fj).find("refused by:") == std::string::npos);
}

TEST_CASE("a million-client simulation's report stays small" * doctest::test_suite("long")) {
  // A sanitizer tree simulates a tenth of the fleet (129 s of TSan's case time for the
  // million): the report's size is bounded by its columns either way.
  const std::int64_t clients = kSanitized ? 100'000 : 1'000'000;
  TempDir dir;
  const auto results_path = dir.file("million.json");
  const auto sim = run("timeout " + std::to_string(slowed(120)) + " " + quote(bin_path("loadgen")) +
                       " simulate --scenario " + quote(source_path("examples/storm.json")) +
                       " --strategy exponential --clients " + std::to_string(clients) +
                       " --allowance 100000/s --quiet --out " + quote(results_path));
  REQUIRE_MESSAGE((sim.exit_code == 0 || sim.exit_code == 1), sim.output);
  const auto r = load_results_file(results_path);
  REQUIRE_MESSAGE(r, r.error());
  CHECK(r->summary.items == clients);
  const auto html = render_report({*r}, {});
  CHECK(html.size() < 2'000'000);
  CHECK(html.find(kSanitized ? "100,000" : "1,000,000") != std::string::npos);
}

TEST_CASE("write_report writes one run's page, its default path sits beside the results") {
  TempDir dir;
  const auto fj = golden_results("storm_full_jitter.results.json");
  CHECK_FALSE(write_report(fj, dir.file("fj.html")));
  CHECK(read_file(dir.file("fj.html")) == render_report({fj}, {default_label(fj)}));
  CHECK(write_report(fj, dir.file("missing/fj.html")).has_value());

  CHECK(default_report_path("out/storm.json") == "out/storm.html");
  CHECK(default_report_path("storm.json") == "storm.html");
  CHECK(default_report_path("results") == "results.html");
  CHECK(default_report_path("dir.json/x") == "dir.json/x.html");
  CHECK(default_report_path("out/.json") == "out/.json.html");
  CHECK(default_label(fj) == "full-jitter");
}

TEST_CASE("the summary counts the assertions its table shows, a duplicate once") {
  // A document written before duplicates were merged: an expectation repeated by --assert.
  auto r = golden_results("storm_full_jitter.results.json");
  r.verdicts = {{"peak_ratio <= 2", true, 0.5, 2, {}},
                {"drain_s <= 120", false, 130, 120, {}},
                {"peak_ratio <= 2", true, 0.5, 2, {}},
                {"peak_ratio <= 2", true, 0.5, 2, {}}};
  const auto html = render_report({r}, {"run"});
  CHECK(html.find(">1 passed, 1 failed<") != std::string::npos);
  const auto start = html.find("<section id=\"assertions\">");
  REQUIRE(start != std::string::npos);
  const auto section = html.substr(start, html.find("</section>", start) - start);
  CHECK(count_of(section, "<tr><td class=\"key\">") == 2);
}

// The section's text, from its opening tag to its end.
std::string section_of(const std::string& html, const std::string& id) {
  const auto start = html.find("<section id=\"" + id + "\"");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</section>", start) - start);
}

TEST_CASE("a staging run's report says where and when it ran, and draws what the gate is about" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  const auto r = golden_results("staging_run.results.json");
  REQUIRE(r.context);
  const auto html = render_report({r}, {});
  const auto found = checked(html, dir, "staging.html");
  CHECK(found["sections"] ==
        nlohmann::json({"verdict", "context", "summary", "arrivals", "waves", "retries", "statuses",
                        "backoff", "latency", "attempts", "lateness", "response", "dead-letters",
                        "assertions", "scenario"}));
  const auto context = section_of(html, "context");
  for (const auto& shown :
       {std::string("http://127.0.0.1:"), r.context->started_utc,
        format_count(r.context->wall_s) + " s", std::string("0.25 (a wall second is 4 scenario"),
        std::string("200: 295, 429: 758"), r.stampede_version}) {
    CAPTURE(shown);
    CHECK(context.find(html_escape(shown)) != std::string::npos);
  }
  CHECK(html.find("stopped-early") == std::string::npos);
  CHECK(html.find("user:") == std::string::npos);
  // The allowance is the declared one, and says so wherever it is drawn.
  // arrivals, waves, retries, statuses, and the zooms of all but the retries (t=0's 456 sends
  // flatten the rest; the retries start past them).
  CHECK(count_of(html, ">declared allowance 20/s</text>") == 7);
  CHECK(html.find(">allowance") == std::string::npos);
  // The retries on their own scale: from t=1 s, topped by the busiest second of retries, not
  // by the first wave.
  const auto retries = section_of(html, "retries");
  CHECK(retries.find("busiest second of retries (peak_retry_ratio): t=1 s, 173 retries") !=
        std::string::npos);
  CHECK(retries.find(">2nd</span>") != std::string::npos);
  CHECK(retries.find(">1st</span>") == std::string::npos);
  CHECK(retries.find("text-anchor=\"middle\">1</text>") != std::string::npos);
  CHECK(retries.find("text-anchor=\"middle\">0</text>") == std::string::npos);
  CHECK(retries.find("text-anchor=\"end\">200</text>") != std::string::npos);  // 173 -> 200
  CHECK(retries.find("text-anchor=\"end\">500</text>") == std::string::npos);  // 456 at t=0
  CHECK(section_of(html, "waves").find("text-anchor=\"end\">500</text>") != std::string::npos);
  CHECK(section_of(html, "statuses").find(">429</span>") != std::string::npos);
  CHECK(section_of(html, "response").find("send 4: p50 ") != std::string::npos);
  CHECK(section_of(html, "dead-letters").find("attempts_exhausted: 5 items") != std::string::npos);
}

TEST_CASE("a run stopped early says so at the top, and why" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  auto r = golden_results("staging_run.results.json");
  r.context->stopped_by = "--max-duration 5s";
  r.recording.unfinished = 12;
  const auto html = render_report({r}, {});
  checked(html, dir, "stopped.html");
  const auto banner = html.find(
      "<p class=\"banner\" id=\"stopped-early\">Stopped early: by "
      "--max-duration 5s after " +
      format_count(r.context->wall_s) + " s on the wall, with 12 items unfinished.");
  CHECK(banner != std::string::npos);
  CHECK(banner < html.find("<section id=\"summary\">"));
  CHECK(section_of(html, "dead-letters").find("unfinished: 12 items") != std::string::npos);
  // A simulation has no wall clock: no run section, no banner.
  const auto sim = render_report({golden_results("storm_full_jitter.results.json")}, {});
  CHECK(sim.find("<section id=\"context\">") == std::string::npos);
}

TEST_CASE("the report opens with its verdict: the failed checks, by how much, what to change" *
          doctest::skip(skip_unless_ci(!has_python()))) {
  TempDir dir;
  const auto exp = golden_results("storm_exponential.results.json");
  const auto fj = golden_results("storm_full_jitter.results.json");
  const auto html = render_report({exp}, {"exponential"});
  const auto found = checked(html, dir, "storm.html");
  // First, before any table or chart.
  REQUIRE(found["sections"].size() > 2);
  CHECK(found["sections"][0] == "verdict");
  const auto verdict = section_of(html, "verdict");
  CHECK(html.find("<section id=\"verdict\"") < html.find("<svg"));
  CHECK(verdict.find("<h2>Failed: 3 of 4 checks</h2>") != std::string::npos);
  for (const char* shown :
       {"<code>peak_ratio &lt;= 2</code>: measured 10, needs &lt;= 2: 5\u00d7 the limit",
        "<code>drain_s &lt;= 120</code>: measured 543 s, needs &lt;= 120 s: 4.53\u00d7 the limit",
        "<code>requests &lt; 10000</code>: measured 10,500, needs &lt; 10,000: 500 over (5%)",
        // The reading guide's advice, one per cause.
        "(the herd: more retries in one second than the provider admits): Add jitter",
        "<code class=\"flag\">--strategy</code> full-jitter",
        "(the backlog drains slowly): Jitter first",
        "(too many requests per item): Fewer, later retries",
        "<code class=\"flag\">--retry-budget</code>", "Passed: delivered == items."}) {
    CAPTURE(shown);
    CHECK(verdict.find(shown) != std::string::npos);
  }
  CHECK(count_of(verdict, "<b>What to change</b>") == 3);
  // The report travels alone: it never sends its reader to a guide it does not carry.
  CHECK(html.find("READING.md") == std::string::npos);

  const auto passed = section_of(render_report({fj}, {"full-jitter"}), "verdict");
  CHECK(passed.find("class=\"verdict held\"><h2>Passed: all 4 checks held</h2>") !=
        std::string::npos);
  CHECK(passed.find("What to change") == std::string::npos);

  const auto both = section_of(render_report({exp, fj}, {"exponential", "full-jitter"}), "verdict");
  CHECK(both.find("<h2>Failed: exponential (3 of 4 checks)</h2>") != std::string::npos);
  CHECK(both.find("<li><b>exponential</b>: <span class=\"fail\">FAIL</span> <code>peak_ratio") !=
        std::string::npos);
  CHECK(both.find("full-jitter: all 4 checks passed.") != std::string::npos);

  Results unjudged;
  unjudged.engine = "simulate";
  CHECK(section_of(render_report({unjudged}, {}), "verdict")
            .find("<h2>No checks were run: nothing here was judged</h2>") != std::string::npos);
}

TEST_CASE(
    "a check the run could not judge says why at the top, and an exec fleet's advice says "
    "whose policy it is") {
  auto r = golden_results("storm_full_jitter.results.json");
  r.engine = "exec";
  r.verdicts = {{"peak_retry_ratio <= 2", false, 0, 2, "the fleet never retried", true},
                {"dead_letter_ratio <= 0.01", false, 0.2, 0.01, {}}};
  const auto verdict = section_of(render_report({r}, {}), "verdict");
  CHECK(verdict.find("<span class=\"fail\">REFUSED</span> <code>peak_retry_ratio &lt;= 2</code>: "
                     "not judged: the fleet never retried") != std::string::npos);
  CHECK(verdict.find("measured 0.2, needs &lt;= 0.01: 20\u00d7 the limit") != std::string::npos);
  CHECK(count_of(verdict, "<b>What to change</b>") == 1);
  CHECK(verdict.find("(items given up on)") != std::string::npos);
  CHECK(verdict.find("An exec fleet retries by its program&#39;s own policy") != std::string::npos);
}

TEST_CASE("an exec run's report says whose record its statuses are, never a bare none") {
  auto r = golden_results("staging_run.results.json");
  REQUIRE(r.context);
  r.engine = "exec";
  r.recording.statuses.clear();  // an exec fleet's program reads its own answers
  r.provider_side = true;
  r.recording.provider_by_outcome = BinnedCounts(kNsPerSec, kOutcomeCount);
  r.recording.provider_by_outcome.add(0, static_cast<std::size_t>(Outcome::kUnavailable), 24);
  r.recording.provider_by_outcome.add(kNsPerSec, static_cast<std::size_t>(Outcome::kOk), 8);
  r.recording.provider_by_outcome.add(kNsPerSec, static_cast<std::size_t>(Outcome::kRateLimited),
                                      16);
  auto row = [](const Results& run) {
    const auto context = section_of(render_report({run}, {}), "context");
    const auto at = context.find("<td class=\"key\">HTTP statuses read</td><td>");
    REQUIRE(at != std::string::npos);
    const auto from = context.find("<td>", at + 10) + 4;
    return context.substr(from, context.find("</td>", from) - from);
  };
  CHECK(row(r) ==
        "not read by loadgen: the program reads its own answers; the provider answered 2xx: 8, "
        "429: 16, 503: 24");
  auto unread = r;
  unread.provider_side = false;  // the provider's stats were not taken
  CHECK(row(unread) ==
        "not read by loadgen: the program reads its own answers, and the provider&#39;s record "
        "was not taken");
  auto silent = r;
  silent.recording.provider_by_outcome = BinnedCounts(kNsPerSec, kOutcomeCount);
  CHECK(row(silent) ==
        "not read by loadgen: the program reads its own answers; the provider recorded no "
        "arrival");
  // A live run's clients read their own: as before.
  CHECK(row(golden_results("staging_run.results.json")) == "200: 295, 429: 758");
}

TEST_CASE("an outage's label is drawn over the bars, never behind them") {
  // The storm's outage: its first second is the fleet's 1,000 first sends, a full-height bar
  // where the label sits.
  const auto html = render_report({golden_results("storm_exponential.results.json")}, {});
  for (const std::string id : {"arrivals", "waves", "backoff"}) {
    CAPTURE(id);
    const auto chart = section_of(html, id);
    const auto label = chart.rfind(">outage</text>");
    REQUIRE(label != std::string::npos);
    // After every drawn bar (arrivals, waves) or area (backoff), and the tooltips' columns.
    const auto last_data =
        std::max({chart.rfind("class=\"bars\""), chart.rfind("fill-opacity=\"0.35\""),
                  chart.rfind("fill-opacity=\"0\"")},
                 [](std::size_t a, std::size_t b) {
                   return (a == std::string::npos ? 0 : a) < (b == std::string::npos ? 0 : b);
                 });
    REQUIRE(last_data != std::string::npos);
    CHECK(label > last_data);
  }
}

// The drawn top of each panel of a section: the label of its highest y tick.
std::vector<std::string> y_tops(const std::string& section) {
  std::vector<std::string> tops;
  const std::string svg_open = "<svg";
  for (auto at = section.find(svg_open); at != std::string::npos;
       at = section.find(svg_open, at + 1)) {
    const auto end = section.find("</svg>", at);
    const auto panel = section.substr(at, end - at);
    // The y ticks are the texts at kLeft - 6 (x=56), bottom up: the last one is the top.
    const auto last = panel.rfind("<text x=\"56\"");
    if (last == std::string::npos) continue;
    const auto from = panel.find('>', last) + 1;
    tops.push_back(panel.substr(from, panel.find('<', from) - from));
  }
  return tops;
}

TEST_CASE(
    "a spike that dwarfs the rest gets a zoomed panel beside it, its columns cut and marked") {
  const auto exp = golden_results("storm_exponential.results.json");
  const auto fj = golden_results("storm_full_jitter.results.json");
  // The fix beside the storm: both arrivals panels are drawn to the first second's 2,000/s,
  // where the fix's tail (49/s at most) is a sliver; the zoom draws both again to the scale of
  // the rest.
  const auto both = render_report({exp, fj}, {"exponential", "full-jitter"});
  const auto arrivals = section_of(both, "arrivals");
  CHECK(count_of(arrivals, "<div class=\"zoom\">") == 2);
  const auto tops = y_tops(arrivals);
  REQUIRE(tops.size() == 4);  // each run's panel, then its zoom
  CHECK(tops[0] == "2500");   // the storm's first second: 1,000 first sends and their retries
  CHECK(tops[2] == "2500");
  CHECK(tops[1] == tops[3]);
  CHECK(std::stod(tops[1]) <= 250);
  // The storm's columns that reach past the zoom's top are cut, and marked as cut.
  CHECK(arrivals.find("class=\"cut\"") != std::string::npos);
  CHECK(arrivals.find("reaches 1,000") != std::string::npos);
  // The retries panel of the comparison zooms to the fix's retries and the allowance.
  CHECK(count_of(section_of(both, "retries"), "<div class=\"zoom\">") == 2);

  // A storm alone is its spikes: most of its columns are tall, and it gets no zoom.
  const auto storm = render_report({exp}, {});
  CHECK(section_of(storm, "arrivals").find("class=\"zoom\"") == std::string::npos);
  CHECK(section_of(storm, "retries").find("class=\"zoom\"") == std::string::npos);
  // Nor does a chart with no spike: the fix's retries, on their own scale already.
  CHECK(section_of(render_report({fj}, {}), "retries").find("class=\"zoom\"") == std::string::npos);
  // Without a zoom nothing is cut.
  CHECK(storm.find("class=\"cut\"") == std::string::npos);
}
