#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& line : lines(text)) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, prefix.size(), prefix) == 0)
      out.push_back(line.substr(first));
  }
  return out;
}

}  // namespace

TEST_CASE("simulate: the storm without jitter fails exactly the three expectations") {
  const auto r =
      run_binary("loadgen", {"simulate", "--scenario", kStorm, "--strategy", "exponential"});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  const auto failed = lines_starting(r.out, "FAIL");
  CHECK(failed == std::vector<std::string>{"FAIL  peak_ratio <= 2 (10)",
                                           "FAIL  drain_s <= 120 (543)",
                                           "FAIL  requests < 10000 (10500)"});
  // And the default expectation, as every command holds a fleet to it.
  CHECK(lines_starting(r.out, "PASS") ==
        std::vector<std::string>{"PASS  delivered == items (1000)", "PASS  delivered > 0 (1000)"});
  CHECK(contains(r.out, "t=31 s, 1000 requests"));
  CHECK(contains(r.out, "requests made:  10500"));
  CHECK(contains(r.out, "last item got through at t=543 s"));
  CHECK(contains(r.out, "t=31: 1000, t=63: 900, t=123: 800, t=183: 700, t=243: 600"));
  CHECK(contains(r.out, "t=543: 100"));
}

TEST_CASE("simulate: the storm with full jitter passes for seeds 1, 2, 3") {
  for (const char* seed : {"1", "2", "3"}) {
    CAPTURE(std::string(seed));
    const auto r = run_binary(
        "loadgen", {"simulate", "--scenario", kStorm, "--strategy", "full-jitter", "--seed", seed});
    CHECK(r.code == 0);
    CHECK(lines_starting(r.out, "FAIL").empty());
    CHECK(lines_starting(r.out, "PASS").size() == 5);  // the four and delivered > 0
    CHECK(contains(r.out, "delivered 1000 of 1000"));
  }
}

TEST_CASE("simulate: --out twice with the same seed writes byte-identical results") {
  const TempDir dir;
  const auto run = [&](const std::string& name, const char* seed) {
    const auto r =
        run_binary("loadgen", {"simulate", "--scenario", kStorm, "--strategy", "full-jitter",
                               "--seed", seed, "--quiet", "--out", dir.file(name)});
    CHECK(r.code == 0);
    CHECK(r.out.empty());  // --quiet
    return read_file(dir.file(name));
  };
  const auto a = run("a.json", "5");
  const auto b = run("b.json", "5");
  const auto c = run("c.json", "6");
  REQUIRE_FALSE(a.empty());
  CHECK(a == b);
  CHECK(a != c);
  const auto doc = json::parse(a);
  for (const char* key :
       {"items", "delivered", "dead_lettered", "requests", "peak_second", "peak_arrivals",
        "peak_ratio", "drain_s", "amplification", "p50_s", "p99_s"}) {
    CAPTURE(std::string(key));
    CHECK(doc.at("summary").contains(key));
  }
  CHECK(doc.at("summary").at("delivered") == 1000);
  CHECK(doc.at("scenario").at("fleet").at("seed") == 5);
  CHECK(doc.at("assertions").size() == 5);
  CHECK(doc.at("histograms").contains("provider_arrivals_by_outcome"));
  // What it wrote reads back as a results document.
  const auto loaded = stampede::load_results_file(dir.file("a.json"));
  REQUIRE_MESSAGE(loaded, loaded.error());
  CHECK(loaded->recording.delivered == 1000);
  CHECK(stampede::to_json(*loaded).dump(1) + "\n" == a);
}

TEST_CASE("simulate: --assert adds to the expectations, a failing one exits 1 naming it") {
  const auto pass =
      run_binary("loadgen", {"simulate", "--scenario", kStorm, "--strategy", "full-jitter",
                             "--assert", "dead_lettered == 0", "--assert", "amplification < 10"});
  CHECK(pass.code == 0);
  CHECK(lines_starting(pass.out, "PASS").size() == 7);
  const auto fail = run_binary("loadgen", {"simulate", "--scenario", kStorm, "--strategy",
                                           "full-jitter", "--assert", "requests < 100"});
  CHECK(fail.code == 1);
  const auto failed = lines_starting(fail.out, "FAIL");
  REQUIRE(failed.size() == 1);
  CHECK(contains(failed[0], "requests < 100"));
}

TEST_CASE("simulate: an unknown metric in --assert is a usage error") {
  const auto r = run_binary("loadgen", {"simulate", "--scenario", kStorm, "--strategy",
                                        "full-jitter", "--assert", "bogus_metric < 1"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  const auto err = lines(r.err);
  REQUIRE(err.size() == 1);
  CHECK(contains(err[0], "'bogus_metric'"));
  CHECK(contains(err[0], "peak_ratio"));
}

TEST_CASE("simulate: bad input is one line naming the field, the value and what is accepted") {
  const TempDir dir;
  const auto malformed = dir.write("malformed.json", R"({"fleet": {"clients": 10,}})");
  const auto unknown = dir.write("unknown.json", R"({"fleet": {"strateg": "full-jitter"}})");
  const auto missing = dir.file("missing.json");
  struct Row {
    std::vector<std::string> args;
    std::vector<std::string> wanted;  // every one must be on the line
  };
  for (const Row& r : {
           Row{{"--scenario", kStorm, "--strategy", "foo"},
               {"fleet.strategy", "'foo'",
                "expected one of none, fixed, exponential, full-jitter"}},
           Row{{"--scenario", kStorm, "--base", "0s"},
               {"fleet.base", "'0s'", "must be longer than zero"}},
           Row{{"--scenario", kStorm, "--base", "-1s"},
               {"fleet.base", "'-1s'", "(negative)", "expected a number and a unit"}},
           Row{{"--scenario", kStorm, "--cap", "1s", "--base", "2s"},
               {"fleet.cap", "1s", "fleet.base 2s", "must be at least the base"}},
           Row{{"--scenario", kStorm, "--allowance", "100/sec"},
               {"provider.allowance", "'100/sec'", "expected N/s, N/min or N/h"}},
           Row{{"--scenario", kStorm, "--outage", "30s-10s"},
               {"provider.outages", "'30s-10s'", "expected START-END[:STATUS]"}},
           Row{{"--scenario", kStorm, "--workload", "burst"},
               {"fleet.workload", "'burst'", "storm, steady, queue"}},
           Row{{"--scenario", missing}, {"--scenario", missing}},
           Row{{"--scenario", dir.path()}, {"--scenario", dir.path()}},
           Row{{"--scenario", malformed}, {malformed, "not valid JSON"}},
           Row{{"--scenario", unknown},
               {unknown, "unknown key 'fleet.strateg'", "did you mean 'fleet.strategy'?"}},
       }) {
    std::string joined;
    for (const auto& a : r.args) joined += a + " ";
    CAPTURE(joined);
    std::vector<std::string> args{"simulate"};
    args.insert(args.end(), r.args.begin(), r.args.end());
    const auto res = run_binary("loadgen", args);
    CHECK(res.code == 2);
    CHECK(res.out.empty());
    const auto err = lines(res.err);
    CAPTURE(res.err);
    REQUIRE(err.size() == 1);
    for (const auto& want : r.wanted) {
      CAPTURE(want);
      CHECK(contains(err[0], want));
    }
  }
}

TEST_CASE("simulate: a scenario file it may not read is one line naming it") {
  if (geteuid() == 0) return;  // root reads whatever the mode says
  const TempDir dir;
  const auto locked = dir.write("locked.json", "{}");
  REQUIRE(chmod(locked.c_str(), 0) == 0);
  const auto r = run_binary("loadgen", {"simulate", "--scenario", locked});
  CHECK(r.code == 2);
  const auto err = lines(r.err);
  REQUIRE(err.size() == 1);
  CHECK(contains(err[0], "cannot read scenario file '" + locked + "'"));
}

TEST_CASE("advise: the seed's fleet arithmetic") {
  const std::vector<std::string> fleet{
      "advise", "--clients", "400",   "--allowance", "4000/min",       "--strategy", "full-jitter",
      "--base", "1s",        "--cap", "8s",          "--max-attempts", "5"};
  auto with_json = fleet;
  with_json.push_back("--json");
  const auto r = run_binary("loadgen", with_json);
  REQUIRE(r.code == 0);
  const auto j = json::parse(r.out);
  CHECK(j.at("allowance_per_s").get<double>() == doctest::Approx(66.67).epsilon(1e-3));
  const double rates[] = {400, 200, 100, 50};
  REQUIRE(j.at("rounds").size() >= 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(j.at("rounds")[i].at("rate_per_s").get<double>() == doctest::Approx(rates[i]));
    CHECK(j.at("rounds")[i].at("fits").get<bool>() == (i == 3));
  }
  CHECK(j.at("first_fitting_round") == 4);
  CHECK(j.at("min_base_s").get<double>() == doctest::Approx(6.0).epsilon(0.01));
  CHECK(j.at("worst_wait_s").get<double>() == doctest::Approx(23.0));

  const auto text = run_binary("loadgen", fleet);
  CHECK(text.code == 0);
  for (const char* want : {"66.7/s", "first round that fits: 4", "6.0s", "worst case 23.0s"}) {
    CAPTURE(std::string(want));
    CHECK(contains(text.out, want));
  }
}

TEST_CASE("advise: a demand above the allowance reports the deficit and backlog") {
  const auto r = run_binary("loadgen", {"advise", "--clients", "400", "--allowance", "4000/min",
                                        "--demand", "8000/min", "--over", "10m", "--json"});
  REQUIRE(r.code == 0);
  const auto j = json::parse(r.out);
  CHECK(j.at("deficit_per_min").get<double>() == doctest::Approx(4000));
  CHECK(j.at("backlog").get<double>() == doctest::Approx(40'000));
}

TEST_CASE("advise --check gates a configuration: exit 1 when no retry round fits") {
  const std::vector<std::string> fleet{"advise", "--clients", "400",   "--allowance", "4000/min",
                                       "--base", "1s",        "--cap", "8s",          "--check"};
  const auto with = [&](std::vector<std::string> extra) {
    auto args = fleet;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_binary("loadgen", args);
  };
  // Full jitter's fourth round spreads 400 clients over 8 s: 50/s, within 66.7/s.
  CHECK(with({"--strategy", "full-jitter", "--max-attempts", "5"}).code == 0);
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--strategy", "full-jitter", "--max-attempts", "3"},     // gives up before round 4
           {"--strategy", "exponential", "--max-attempts", "5"}}) {  // no jitter spreads none
    CAPTURE(extra[1]);
    const auto r = with(extra);
    CHECK(r.code == 1);
    REQUIRE(lines(r.err).size() == 1);
    CHECK(contains(r.err, "--check: no retry round of 400 clients fits the allowance"));
    CHECK(contains(r.out, "no listed round fits the allowance"));  // the advice is printed
  }
}

TEST_CASE("advise: bad input is a usage error") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"advise", "--clients", "400", "--allowance", "4000/sec"},
           {"advise", "--clients", "400"},
           {"advise", "--clients", "400", "--allowance", "4000/min", "--strategy", "foo"},
           {"advise", "--clients", "400", "--allowance", "4000/min", "--demand", "lots"}}) {
    CAPTURE(args.back());
    const auto r = run_binary("loadgen", args);
    CHECK(r.code == 2);
    CHECK(lines(r.err).size() == 1);
  }
}

TEST_CASE("--help ends with a copy-pasteable example, --version names the version") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"simulate", "--help"}, {"advise", "--help"}}) {
    CAPTURE(args.front());
    const auto r = run_binary("loadgen", args);
    CHECK(r.code == 0);
    const auto out = lines(r.out);
    REQUIRE_FALSE(out.empty());
    CHECK(out.back().rfind("  loadgen ", 0) == 0);
  }
  const auto v = run_binary("loadgen", {"--version"});
  CHECK(v.code == 0);
  CHECK(v.out.rfind("loadgen ", 0) == 0);
  CHECK(contains(v.out, "."));
}

TEST_CASE("no subcommand or an unknown flag is a usage error") {
  CHECK(run_binary("loadgen", {}).code == 2);
  CHECK(run_binary("loadgen", {"simulate", "--no-such-flag"}).code == 2);
}

TEST_CASE("simulate: 400 workers without jitter against 4000/min: the default shows the storm") {
  // The per-second default admits 66 of the 400 at once, as a provider that enforces its
  // per-minute allowance a second at a time would; a named fixed-window admits all 400 in its
  // first minute, and there is no storm to see.
  const TempDir dir;
  const auto simulate = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{
        "simulate", "--clients",      "400",         "--workload", "storm",       "--allowance",
        "4000/min", "--strategy",     "exponential", "--base",     "1s",          "--cap",
        "8s",       "--max-attempts", "5",           "--out",      dir.file(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_binary("loadgen", args);
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    return std::pair{r.out, json::parse(read_file(dir.file(name)))};
  };
  const auto [text, per_second] = simulate("default.json", {});
  CHECK(contains(text, "provider: allowance 4000/min (per-second)"));
  CHECK(per_second.at("scenario").at("provider").at("limiter") == "per-second");
  const auto& s = per_second.at("summary");
  CHECK(s.at("peak_retries") == 334);  // the 334 refused at t=0, back together at t=1
  CHECK(s.at("peak_retry_second") == 1);
  CHECK(s.at("peak_retry_ratio").get<double>() > 5);
  CHECK(s.at("retry_share").get<double>() > 0.5);
  CHECK(contains(text,
                 "busiest second among retries, past the first: t=1 s, 334 retries (5.0x; "
                 "1 s bins)"));

  const auto [fixed_text, fixed] = simulate("fixed.json", {"--limiter", "fixed-window"});
  CHECK(contains(fixed_text, "provider: allowance 4000/min (fixed-window)"));
  CHECK(fixed.at("summary").at("retries") == 0);
  CHECK(fixed.at("summary").at("peak_ratio") == 6.0);
}
