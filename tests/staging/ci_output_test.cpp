// What a CI log shows of a run (issue 16, "Output a CI log can show"): stderr is never a
// terminal here, as on a CI runner, so the progress line is the plain one, a line every
// --progress-every of wall time in scenario seconds; `--out -` puts the results on stdout and
// everything else on stderr; every file written is named, and a run without --out says it
// kept nothing.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/nginx.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using support::contains;
using support::FakeProvider;
using support::kLoadgenBin;
using support::lines;
using support::Process;
using support::start_nginx;
using support::TempDir;

namespace {

constexpr int kCiRunWaitMs = 60'000;

struct Output {
  int code = -1;
  std::string out, err;
};

// loadgen with these arguments, run in dir (its working directory is the test's: any file
// it made there by mistake would show).
Output loadgen(const TempDir& dir, const std::vector<std::string>& args) {
  Process p(kLoadgenBin, args, dir, "loadgen");
  Output o;
  o.code = p.wait(kCiRunWaitMs);
  o.out = p.out();
  o.err = p.err();
  return o;
}

// The stderr lines that are progress lines, and the t= each gives (scenario seconds).
std::vector<double> progress_times(const std::string& err) {
  std::vector<double> times;
  for (const auto& line : lines(err)) {
    if (line.rfind("loadgen: t=", 0) != 0) continue;
    CHECK(contains(line, " s  items: "));
    CHECK(contains(line, " in backoff, "));
    CHECK(contains(line, "  requests "));
    CHECK(contains(line, "  statuses: 2xx "));
    times.push_back(std::atof(line.c_str() + std::string("loadgen: t=").size()));
  }
  return times;
}

}  // namespace

TEST_CASE("no terminal: a plain progress line every --progress-every, in scenario seconds") {
  // At --time-scale 0.1 a wall second is ten scenario seconds: 2 items a second for 20
  // scenario seconds send for 2 s of wall, several lines' worth.
  FakeProvider p({"--allowance", "5/s", "--time-scale", "0.1"});
  REQUIRE(p.started());
  TempDir dir;
  const std::vector<std::string> run{
      "run",  "--url",      p.url(), "--provider-admin", p.admin(), "--time-scale",
      "0.1",  "--clients",  "30",    "--workload",       "steady",  "--rate",
      "2/s",  "--duration", "20s",   "--max-duration",   "60s",     "--progress-every",
      "300ms"};
  const auto r = loadgen(dir, run);
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  const auto times = progress_times(r.err);
  REQUIRE(times.size() >= 2);
  // The first line is due 300 ms of wall in: 3 scenario seconds at the least. Wall seconds
  // would say 0.3.
  CHECK(times.front() >= 3.0);
  for (std::size_t i = 1; i < times.size(); ++i) CHECK(times[i] > times[i - 1]);
  // No terminal codes in a log.
  CHECK_FALSE(contains(r.err, "\r"));
  CHECK_FALSE(contains(r.err, "\033["));
  // The summary, which speaks the same seconds, comes after the lines, on stdout. (How many
  // were delivered is the machine's: a start 1.8 s late under TSan sent 18 scenario seconds of
  // arrivals at once, into the allowance.)
  CHECK(contains(r.out, "delivered "));
  CHECK(contains(r.out, " of 40"));
}

TEST_CASE("--quiet silences the progress line; --progress-every takes a positive duration") {
  FakeProvider p({"--allowance", "5/s", "--time-scale", "0.1"});
  REQUIRE(p.started());
  TempDir dir;
  // A line every 50 ms, if any were printed.
  std::vector<std::string> run{
      "run", "--url",     p.url(), "--provider-admin", p.admin(), "--time-scale",
      "0.1", "--clients", "30",    "--progress-every", "50ms"};
  const auto shown = loadgen(dir, run);
  CHECK(shown.code == 0);
  CHECK_FALSE(progress_times(shown.err).empty());
  run.push_back("--quiet");
  const auto quiet = loadgen(dir, run);
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
  CHECK(quiet.out.empty());
  for (const char* bad : {"0s", "-1s", "often"}) {
    CAPTURE(bad);
    const auto w = loadgen(dir, {"run", "--url", p.url(), "--progress-every", bad});
    CHECK(w.code == 2);
    CHECK(contains(w.err, "loadgen: --progress-every: "));
  }
}

TEST_CASE("on a terminal: the line is redrawn in place, in scenario seconds too") {
  // script(1) gives loadgen a terminal for stdout and stderr and copies what it shows. The
  // fleet sends for 20 scenario seconds: 2 s of wall, past the first redraw.
  if (access("/usr/bin/script", X_OK) != 0) {
    MESSAGE("skipped: script(1) is not installed");
    return;
  }
  FakeProvider p({"--allowance", "5/s", "--time-scale", "0.1"});
  REQUIRE(p.started());
  TempDir dir;
  const std::string command = kLoadgenBin + " run --url " + p.url() + " --provider-admin " +
                              p.admin() +
                              " --time-scale 0.1 --clients 30 --workload steady --rate 2/s "
                              "--duration 20s --max-duration 60s";
  Process shown("/usr/bin/script", {"-qec", command, dir.file("typescript")}, dir, "script");
  CHECK(shown.wait(kCiRunWaitMs) == 0);
  const std::string screen = shown.out();
  INFO("terminal: " << screen);
  const auto at = screen.find("\rt=");
  REQUIRE(at != std::string::npos);
  // Redrawn each wall second: the first at 1 s of wall, 10 scenario seconds; wall seconds
  // would say 1.0.
  CHECK(std::atof(screen.c_str() + at + 3) >= 10.0);
  CHECK(contains(screen, "\033[K"));
  CHECK_FALSE(contains(screen, "loadgen: t="));  // the log's line is for logs
}

TEST_CASE("exec without a terminal: plain progress lines of the processes") {
  FakeProvider p({"--allowance", "100/s"});
  REQUIRE(p.started());
  TempDir dir;
  const auto r = loadgen(dir, {"exec", "--clients", "3", "--url", p.url(), "--provider-admin",
                               p.admin(), "--progress-every", "500ms", "--", "/bin/sleep", "2.5"});
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  bool seen = false;
  for (const auto& line : lines(r.err)) {
    if (line.rfind("loadgen: t=", 0) != 0) continue;
    seen = true;
    CHECK(contains(line, " s  processes: "));
    CHECK(contains(line, " running, "));
    CHECK(contains(line, "  clients: "));
  }
  CHECK(seen);
}

TEST_CASE("--out -: the results JSON alone on stdout; the summary and the rest on stderr") {
  const auto started = start_nginx();
  if (!started) return;
  TempDir dir;
  const auto cwd = std::filesystem::current_path();
  const auto r = loadgen(dir, {"run", "--url", started->http_url(), "--clients", "5", "--out", "-",
                               "--junit", dir.file("junit.xml")});
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  const auto results = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE(results.is_object());
  CHECK(results["counts"]["delivered"] == 5);
  CHECK(contains(r.err, "delivered 5 of 5"));
  CHECK(contains(r.err, "loadgen: wrote the results to stdout\n"));
  CHECK(contains(r.err, "loadgen: wrote the JUnit XML to " + dir.file("junit.xml") + "\n"));
  // No report beside stdout, and no file called '-'.
  CHECK_FALSE(std::filesystem::exists(cwd / "-"));
  CHECK_FALSE(std::filesystem::exists(cwd / "-.html"));
  CHECK_FALSE(contains(r.err, "report"));

  SUBCASE("'-' is stdout for --out only: elsewhere it is refused, not made a file") {
    for (const char* flag : {"--junit", "--dead-letter", "--report", "--attempts-out"}) {
      CAPTURE(flag);
      const auto w = loadgen(dir, {"run", "--url", started->http_url(), flag, "-"});
      CHECK(w.code == 2);
      CHECK(contains(w.err, std::string("loadgen: ") + flag + ": '-' is not stdout here"));
    }
    CHECK_FALSE(std::filesystem::exists(cwd / "-"));
  }
}

namespace {

// stderr's lines but loadgen's note that its start came late ("loadgen: started 0.01 s after
// the start it planned"), which a loaded machine adds: a line about the run, not its files.
std::vector<std::string> lines_of_files(const std::string& err) {
  auto said = lines(err);
  std::erase_if(said, [](const std::string& l) { return l.rfind("loadgen: started ", 0) == 0; });
  return said;
}

}  // namespace

TEST_CASE("every file written is named on stderr; a run without --out says it kept nothing") {
  const auto started = start_nginx();
  if (!started) return;
  TempDir dir;
  const std::string url = started->http_url();
  SUBCASE("each file by name") {
    const auto r = loadgen(dir, {"run", "--url", url, "--clients", "3", "--out", dir.file("r.json"),
                                 "--dead-letter", dir.file("d.jsonl"), "--attempts-out",
                                 dir.file("a.jsonl"), "--junit", dir.file("j.xml")});
    INFO("stderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(lines_of_files(r.err) ==
          std::vector<std::string>{"loadgen: wrote the dead letters to " + dir.file("d.jsonl"),
                                   "loadgen: wrote the attempts to " + dir.file("a.jsonl"),
                                   "loadgen: wrote the results to " + dir.file("r.json"),
                                   "loadgen: wrote the report to " + dir.file("r.html"),
                                   "loadgen: wrote the JUnit XML to " + dir.file("j.xml")});
    for (const char* f : {"r.json", "d.jsonl", "a.jsonl", "j.xml", "r.html"})
      CHECK(std::filesystem::exists(dir.file(f)));
  }
  SUBCASE("nothing kept") {
    const auto r = loadgen(dir, {"run", "--url", url, "--clients", "3"});
    CHECK(r.code == 0);
    CHECK(lines_of_files(r.err) ==
          std::vector<std::string>{"loadgen: kept nothing: give --out FILE to keep the results "
                                   "(and the report beside it)"});
  }
  SUBCASE("a JUnit file but no results") {
    const auto r = loadgen(dir, {"run", "--url", url, "--clients", "3", "--junit", dir.file("j")});
    INFO("stderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(lines_of_files(r.err) ==
          std::vector<std::string>{
              "loadgen: wrote the JUnit XML to " + dir.file("j"),
              "loadgen: the results document was not kept: give --out FILE to keep it"});
  }
}
