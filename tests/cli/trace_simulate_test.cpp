// loadgen simulate --workload trace: a trace file's arrivals are the fleet's first sends,
// second by second exactly, the same seed gives the same results byte for byte, and a bad
// trace is a usage error naming its line and column before anything runs.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// A bursty trace: this many arrivals in each second, the first at the trace's start.
const std::vector<int> kPerSecond{7, 0, 15, 2, 30, 1};
constexpr long kEpoch = 1767225600;  // 2026-01-01T00:00:00Z

// Each arrival's epoch time with milliseconds, "1767225600.000".
std::vector<std::string> arrival_times() {
  std::vector<std::string> out;
  for (std::size_t s = 0; s < kPerSecond.size(); ++s) {
    for (int i = 0; i < kPerSecond[s]; ++i) {
      const std::string ms = std::to_string(1000 + i * 1000 / kPerSecond[s]).substr(1);
      out.push_back(std::to_string(kEpoch + static_cast<long>(s)) + "." + ms);
    }
  }
  return out;
}

std::string csv_trace() {
  std::string text = "time,tenant,path\n";
  for (const auto& t : arrival_times()) text += t + ",t1,/v1/chat\n";
  return text;
}

// As nginx writes with log_format '$remote_addr - $remote_user [$time_local] "$request"
// $status $body_bytes_sent $msec'.
std::string msec_log() {
  std::string text;
  for (const auto& t : arrival_times())
    text +=
        "127.0.0.1 - - [01/Jan/2026:00:00:00 +0000] \"GET /v1/chat HTTP/1.1\" 200 12 " + t + "\n";
  return text;
}

// The combined format's whole seconds: spread within each second by the seed.
std::string combined_log() {
  std::string text;
  for (std::size_t s = 0; s < kPerSecond.size(); ++s) {
    for (int i = 0; i < kPerSecond[s]; ++i)
      text += "10.0.0." + std::to_string(i) + " - - [01/Jan/2026:00:00:0" + std::to_string(s) +
              " +0000] \"POST /v1/chat HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n";
  }
  return text;
}

// A rate limit below the bursts, so items retry: their later sends are not first sends.
const std::vector<std::string> kFleet{"--clients",   "200",         "--allowance",    "5/s",
                                      "--strategy",  "exponential", "--max-attempts", "3",
                                      "--no-report", "-q"};

std::vector<std::string> simulate(const std::string& trace, const std::string& out,
                                  const std::vector<std::string>& more = {}) {
  return with(with({"simulate", "--workload", "trace", "--trace", trace, "--out", out}, kFleet),
              more);
}

// client_sends_by_send's "1" column: the first sends of each second.
std::vector<int> first_sends_per_second(const std::string& results) {
  const auto h = json::parse(read_file(results)).at("histograms").at("client_sends_by_send");
  REQUIRE(h.at("labels").at(0) == "1");
  REQUIRE(h.at("bin_ms") == 1000);
  std::vector<int> out;
  for (const auto& bin : h.at("counts")) out.push_back(bin.at(0).get<int>());
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("simulate --workload trace: first sends per second equal the trace's, CSV and $msec") {
  const TempDir dir;
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"trace.csv", csv_trace()}, {"access.log", msec_log()}}) {
    CAPTURE(name);
    const auto out = dir.file(name + ".json");
    const auto r = run_binary("loadgen", simulate(dir.write(name, text), out));
    REQUIRE_MESSAGE(r.code <= 1, r.err);
    CHECK(first_sends_per_second(out) == kPerSecond);
    const auto results = json::parse(read_file(out));
    CHECK(results.at("scenario").at("fleet").at("items") == 55);
    CHECK(results.at("scenario").at("fleet").at("workload") == "trace");
    // The limit made them retry: the trace is the first sends, not all of them.
    CHECK(results.at("summary").at("requests").get<int>() > 55);
  }
}

// The results' trace section (docs/RESULTS.md): every figure of a replay the simulator plays
// exactly, and the section's histograms as the figures say.
void check_exact_replay(const json& trace, int arrivals) {
  CHECK(trace.at("lag_p50_ms") == 0.0);
  CHECK(trace.at("lag_p99_ms") == 0.0);
  CHECK(trace.at("lag_max_ms") == 0.0);
  CHECK(trace.at("max_second_difference") == 0);
  CHECK(trace.at("gaps_ks") == 0.0);
  CHECK(trace.at("first_send_lag_ns").at("count") == arrivals);
  CHECK(trace.at("arrival_gaps_ns") == trace.at("first_send_gaps_ns"));
  std::vector<int> per_second;
  for (const auto& bin : trace.at("arrivals").at("counts")) per_second.push_back(bin.at(0));
  while (!per_second.empty() && per_second.back() == 0) per_second.pop_back();
  CHECK(per_second == kPerSecond);
}

TEST_CASE("simulate --workload trace: the results' trace section, an exact replay") {
  const TempDir dir;
  const auto csv = dir.write("trace.csv", csv_trace());
  const auto out = dir.file("out.json");
  REQUIRE(run_binary("loadgen", simulate(csv, out)).code <= 1);
  const auto results = json::parse(read_file(out));
  REQUIRE(results.contains("trace"));
  check_exact_replay(results.at("trace"), 55);

  SUBCASE("merged from shards, as one process") {
    const auto a = dir.file("a.json"), b = dir.file("b.json"), merged = dir.file("m.json");
    REQUIRE(run_binary("loadgen", simulate(csv, a, {"--shard", "0/2"})).code <= 1);
    REQUIRE(run_binary("loadgen", simulate(csv, b, {"--shard", "1/2"})).code <= 1);
    REQUIRE(run_binary("loadgen", {"merge", a, b, "--out", merged, "-q"}).code <= 1);
    check_exact_replay(json::parse(read_file(merged)).at("trace"), 55);
  }
  SUBCASE("the terminal summary's line") {
    const auto r = run_binary("loadgen", {"simulate", "--workload", "trace", "--trace", csv,
                                          "--clients", "200", "--no-report", "--out", out});
    REQUIRE(r.code <= 1);
    CHECK(r.out.find("trace replay: first sends late by p99 0.000 ms (max 0.000 ms); first sends "
                     "a second at most 0 off the trace's (t=0 s); inter-arrival KS distance "
                     "0.000") != std::string::npos);
  }
  SUBCASE("a workload of another kind has no trace section") {
    REQUIRE(run_binary("loadgen", {"simulate", "--workload", "steady", "--clients", "5", "--rate",
                                   "10/s", "--duration", "2s", "--no-report", "-q", "--out", out})
                .code <= 1);
    CHECK_FALSE(json::parse(read_file(out)).contains("trace"));
  }
}

TEST_CASE("simulate --workload trace: dropped arrivals show in the fidelity, not the lag") {
  const TempDir dir;
  const auto out = dir.file("out.json");
  // Three clients for a burst of 30 in a second: most of it finds every client busy.
  REQUIRE(run_binary("loadgen", {"simulate", "--workload", "trace", "--trace",
                                 dir.write("trace.csv", csv_trace()), "--clients", "3",
                                 "--allowance", "5/s", "--no-report", "-q", "--out", out})
              .code <= 1);
  const auto results = json::parse(read_file(out));
  const auto dropped = results.at("counts").at("dropped").get<int>();
  REQUIRE(dropped > 0);
  const auto& trace = results.at("trace");
  CHECK(trace.at("lag_max_ms") == 0.0);
  CHECK(trace.at("first_send_lag_ns").at("count") == 55 - dropped);
  CHECK(trace.at("max_second_difference").get<int>() > 0);
  CHECK(trace.at("gaps_ks").get<double>() > 0);
}

TEST_CASE("simulate --workload trace: the same seed gives byte-identical results") {
  const TempDir dir;
  const auto log = dir.write("combined.log", combined_log());
  const std::vector<std::string> played{"--scale", "1.5", "--speed", "2"};
  const auto a = dir.file("a.json"), b = dir.file("b.json"), c = dir.file("c.json");
  REQUIRE(run_binary("loadgen", simulate(log, a, played)).code <= 1);
  REQUIRE(run_binary("loadgen", simulate(log, b, played)).code <= 1);
  REQUIRE(run_binary("loadgen", simulate(log, c, with(played, {"--seed", "2"}))).code <= 1);
  CHECK(read_file(a) == read_file(b));
  CHECK(read_file(a) != read_file(c));
  // Whole seconds spread within their second: at speed 1 the seconds keep their counts.
  const auto d = dir.file("d.json");
  REQUIRE(run_binary("loadgen", simulate(log, d)).code <= 1);
  CHECK(first_sends_per_second(d) == kPerSecond);
}

TEST_CASE("simulate --workload trace: bad input exits 2 naming its line and column") {
  const TempDir dir;
  struct Row {
    std::string name, trace;
    std::vector<std::string> more;
    std::string wanted;
  };
  for (const auto& r : std::vector<Row>{
           {"a time that cannot be read",
            "time\n1.0\n1.5\n2.x\n",
            {},
            "line 4, column 1: '2.x' is not"},
           {"times going back",
            "time\n10\n12\n9\n",
            {},
            "line 4, column 1: the time goes back 3s before line 3's"},
           {"an empty trace", "", {}, "the trace has no records"},
           {"arrivals too far apart to keep",
            "time\n0\n5000000000\n",
            {},
            "its arrivals could not be kept for the run"},
           {"an unknown format", "hello\n", {}, "line 1, column 1: not a trace format"},
           {"a bad --trace-format",
            "time\n1\n",
            {"--trace-format", "xml"},
            "--trace-format 'xml' is not a format"},
           {"a speed out of range",
            "time\n1\n",
            {"--speed", "5000"},
            "fleet.speed: give a speed from 0.1 to 1000"},
           {"an empty window",
            "time\n1\n",
            {"--from", "2s", "--to", "1s"},
            "fleet.to: 1s is not after fleet.from 2s"},
       }) {
    CAPTURE(r.name);
    const auto out = dir.file("out.json");
    const auto res = run_binary("loadgen", simulate(dir.write("t.csv", r.trace), out, r.more));
    CHECK(res.code == 2);
    CHECK(contains(res.err, r.wanted));
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // Found while the simulation already plays the blocks of arrivals kept before it: still exit
  // 2, and no results.
  std::string late = "time\n";
  for (int i = 0; i < 200000; ++i)
    late += std::to_string(i / 1000) + "." + std::to_string(i % 10) + "\n";
  late += "200.x\n";
  const auto late_out = dir.file("late.json");
  const auto late_bad = run_binary("loadgen", simulate(dir.write("late.csv", late), late_out));
  CHECK(late_bad.code == 2);
  CHECK(contains(late_bad.err, "line 200002, column 1: '200.x' is not"));
  CHECK_FALSE(std::filesystem::exists(late_out));
  const auto missing = run_binary("loadgen", simulate(dir.file("none.log"), dir.file("o.json")));
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, "none.log: cannot open it"));
  const auto folder = run_binary("loadgen", simulate(dir.path(), dir.file("o.json")));
  CHECK(folder.code == 2);
  CHECK(contains(folder.err, "line 1: the trace could not be read (a directory"));
  // exec reads the trace through before anything starts, as run does: a scenario file's too.
  const auto scenario =
      dir.write("trace.json", R"({"fleet": {"workload": "trace", "trace": ")" +
                                  dir.write("t.csv", "time\n1.0\n2.x\n") + R"("}})");
  const auto exec = run_binary(
      "loadgen", {"exec", "--scenario", scenario, "--clients", "2", "--url", "http://127.0.0.1:9/",
                  "--provider-admin", "http://127.0.0.1:9", "-q", "--", "true"});
  CHECK(exec.code == 2);
  CHECK(contains(exec.err, "line 3, column 1: '2.x' is not"));
  const auto other = run_binary("loadgen", {"simulate", "--speed", "2", "-q", "--no-report"});
  CHECK(other.code == 2);
  CHECK(contains(other.err, "fleet.speed: only the trace workload reads a trace"));
}

TEST_CASE("simulate --help explains the trace flags") {
  const auto help = run_binary("loadgen", {"simulate", "--help"});
  CHECK(help.code == 0);
  for (const char* flag : {"--trace ", "--trace-format", "--trace-reorder", "--trace-spread",
                           "--speed", "--scale ", "--scale-spread", "--from", "--to "}) {
    CAPTURE(flag);
    CHECK(contains(help.out, flag));
  }
}
