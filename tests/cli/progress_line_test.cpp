// The progress line's text is a pure function of the run's counts, by table: scenario seconds
// (as the summary counts them), the rate per scenario second since the line before.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/progress_line.hpp"

using namespace stampede;

namespace {

LiveProgress at(double wall_s, std::int64_t sent) {
  LiveProgress p;
  p.elapsed_ns = static_cast<std::int64_t>(wall_s * 1e9);
  p.sent = sent;
  return p;
}

}  // namespace

TEST_CASE("the run's progress line: every count, in scenario seconds") {
  LiveProgress now = at(10, 480);
  now.ok = 150;
  now.rate_limited = 320;
  now.server_errors = 8;
  now.errors = 2;
  now.in_backoff = 30;
  now.delivered = 150;
  now.dead_lettered = 2;
  CHECK(format_run_progress(now, at(0, 0), 1.0) ==
        "t=10.0 s  items: 150 delivered, 30 in backoff, 2 dead-lettered  requests 480 (48.0/s)  "
        "statuses: 2xx 150, 429 320, 5xx 8, errors 2");
}

TEST_CASE("the run's progress line: t and the rate by the time scale, from the line before") {
  struct Case {
    const char* what;
    LiveProgress before, now;
    double time_scale;
    std::string starts;  // t=... and the rate
  };
  const std::vector<Case> cases{
      {"wall time at scale 1", at(0, 0), at(10, 100), 1.0, "t=10.0 s"},
      {"20x compressed: 10 wall s are 200 scenario s", at(0, 0), at(10, 100), 0.05, "t=200.0 s"},
      {"10x stretched", at(0, 0), at(10, 100), 10.0, "t=1.0 s"},
      {"before --start-at: t=0, no rate", at(-3, 0), at(-2, 0), 1.0, "t=0.0 s"},
  };
  const std::vector<std::string> rates{"(10.0/s)", "(0.5/s)", "(100.0/s)", "(0.0/s)"};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    CAPTURE(c.what);
    const auto line = format_run_progress(c.now, c.before, c.time_scale);
    CHECK(line.rfind(c.starts + "  ", 0) == 0);
    CHECK(line.find("requests " + std::to_string(c.now.sent) + " " + rates[i]) !=
          std::string::npos);
  }
  // The rate is since the line before, not since t=0.
  const auto line = format_run_progress(at(20, 300), at(10, 100), 1.0);
  CHECK(line.find("requests 300 (20.0/s)") != std::string::npos);
}

TEST_CASE("exec's progress line: before and after the release") {
  ExecProgress p;
  p.running = 400;
  CHECK(format_exec_progress(p) == "waiting for the release  processes: 400 running");
  p.released = true;
  p.elapsed_ns = 12'300'000'000;
  p.running = 380;
  p.ended = 20;
  p.delivered = 18;
  p.dead_lettered = 2;
  CHECK(format_exec_progress(p) ==
        "t=12.3 s  processes: 380 running, 20 ended  clients: 18 delivered, 2 dead-lettered");
}

TEST_CASE("the printer: due once a period, on a grid; never when disabled") {
  const std::int64_t s = kNsPerSec;
  ProgressPrinter plain(true, false, 10 * s, 100 * s);
  CHECK_FALSE(plain.due(100 * s));
  CHECK(plain.until_due_ns(100 * s) == kProgressTtyRefreshNs);  // polled at least each second
  CHECK(plain.until_due_ns(109'500'000'000) == 500'000'000);
  CHECK(plain.due(110 * s));
  ProgressPrinter off(false, false, 10 * s, 100 * s);
  CHECK_FALSE(off.due(1000 * s));
  // A terminal's line is redrawn each second whatever the period.
  ProgressPrinter tty(true, true, 10 * s, 100 * s);
  CHECK(tty.due(101 * s));
  CHECK(kProgressEveryDefaultNs == 10 * s);
}

TEST_CASE("a simulation's progress line: its own clock, its requests and items") {
  const SimProgress p{42'400'000'000, 480, 150, 1'000'000};
  CHECK(format_sim_progress(p) == "simulated t=42 s  requests 480  finished 150 of 1000000");
  // A trace still being read: its count is not known yet.
  const SimProgress reading{42'400'000'000, 480, 150, 0};
  CHECK(format_sim_progress(reading) == "simulated t=42 s  requests 480  finished 150");
}
