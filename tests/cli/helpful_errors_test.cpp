// Errors that help: a mistyped command, flag, key, metric or operator gets the nearest name
// (or, far from all, where the names are), a bad scenario file is named, and a fleet this
// machine cannot hold connections for is refused before any load. One line, exit 2.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

// The one line a usage error prints, with every wanted part on it.
void check_usage_error(const std::string& binary, const std::vector<std::string>& args,
                       const std::vector<std::string>& wanted,
                       const std::vector<std::string>& unwanted = {}) {
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  CAPTURE(joined);
  const auto r = run_binary(binary, args);
  CAPTURE(r.err);
  CHECK(r.code == 2);
  REQUIRE(lines(r.err).size() == 1);
  for (const auto& w : wanted) {
    CAPTURE(w);
    CHECK(contains(r.err, w));
  }
  for (const auto& u : unwanted) {
    CAPTURE(u);
    CHECK_FALSE(contains(r.err, u));
  }
}

}  // namespace

TEST_CASE("errors: a mistyped command gets the nearest command, a far one the list of seven") {
  check_usage_error("loadgen", {"simulat", "--clients", "3"},
                    {"unknown command 'simulat'", "did you mean 'simulate'?"});
  check_usage_error("loadgen", {"reprot", "a.json"}, {"did you mean 'report'?"});
  check_usage_error("loadgen", {"deploy"},
                    {"unknown command 'deploy'", "simulate, run, exec, report, merge, gate"},
                    {"did you mean"});
}

TEST_CASE("errors: a supervisor's worker is a command of its own, never shown or suggested") {
  TempDir dir;
  // Its own checks: run's, and the shard it is given.
  check_usage_error(
      "loadgen",
      {"fleet-worker", "--dir", dir.path(), "--url", "http://127.0.0.1:1/", "--clients", "2"},
      {"fleet-worker: needs --shard"}, {"unknown command"});
  check_usage_error("loadgen", {"fleet-workr"}, {"unknown command 'fleet-workr'"},
                    {"fleet-worker"});
  const auto help = run_binary("loadgen", {"--help"});
  CHECK(help.code == 0);
  CHECK(contains(help.out, "exec"));
  CHECK_FALSE(contains(help.out, "fleet-worker"));
}

TEST_CASE("errors: a mistyped flag gets the nearest flag of its command") {
  check_usage_error("loadgen", {"simulate", "--scenario", kStorm, "--clinets", "3"},
                    {"simulate: unknown flag '--clinets'", "did you mean '--clients'?"},
                    {"not expected"});
  check_usage_error("loadgen", {"simulate", "--stratgy=full-jitter"},
                    {"did you mean '--strategy'?"});
  check_usage_error("loadgen", {"run", "--ur", "http://127.0.0.1:1/"},
                    {"run: unknown flag '--ur'", "did you mean '--url'?"});
  check_usage_error("loadgen", {"advise", "--allowence", "100/s"}, {"did you mean '--allowance'?"});
  check_usage_error("fakeprovider", {"--allowanc", "100/s"},
                    {"unknown flag '--allowanc'", "did you mean '--allowance'?"});
}

TEST_CASE("errors: a negative duration is called negative") {
  check_usage_error("loadgen", {"simulate", "--scenario", kStorm, "--base", "-1s"},
                    {"fleet.base", "'-1s'", "(negative)"}, {"no number"});
  check_usage_error("fakeprovider", {"--latency", "-5ms"}, {"provider.latency", "negative"});
}

TEST_CASE("errors: an assertion names its bad operator or metric, and takes durations") {
  check_usage_error("loadgen", {"simulate", "--scenario", kStorm, "--assert", "peak_ratio =< 2"},
                    {"'=<' is not a comparison operator", "OP one of < <= > >= == !="},
                    {"unknown metric"});
  check_usage_error("loadgen", {"simulate", "--scenario", kStorm, "--assert", "p99 <= 30s"},
                    {"unknown metric 'p99'", "did you mean 'p99_s'?"}, {"peak_ratio, drain_s"});
  // The same figure, with a unit or in the metric's own: both hold, or both fail.
  for (const auto& check : {"drain_s <= 10m", "drain_s <= 600", "p99_s <= 600000ms"}) {
    CAPTURE(check);
    const auto r = run_binary("loadgen", {"simulate", "--scenario", kStorm, "--strategy",
                                          "full-jitter", "--assert", check, "--no-report"});
    CHECK(r.code == 0);
    CHECK(contains(r.out, check));
  }
}

TEST_CASE("errors: a scenario file with a key twice or a bad expectation is named") {
  const TempDir dir;
  const auto twice = dir.write("twice.json", R"({"fleet": {"clients": 10, "clients": 400}})");
  const auto bad = dir.write("bad.json", R"({"expectations": ["peak_ratio =< 2"]})");
  for (const std::string binary : {"loadgen", "fakeprovider"}) {
    const std::vector<std::string> lead =
        binary == "loadgen" ? std::vector<std::string>{"simulate"} : std::vector<std::string>{};
    auto args = lead;
    args.insert(args.end(), {"--scenario", twice});
    check_usage_error(binary, args, {twice, "'fleet.clients' twice"});
  }
  check_usage_error("loadgen", {"simulate", "--scenario", bad},
                    {bad, "expectations", "'=<' is not a comparison operator"});
  // The file's expectation, meaningless without an allowance, names the file to edit.
  const auto unmeant = dir.write("unmeant.json", R"({"expectations": ["peak_ratio <= 2"]})");
  check_usage_error("loadgen", {"simulate", "--scenario", unmeant},
                    {"scenario file '" + unmeant + "': expectations:", "peak_ratio"});
}

TEST_CASE(
    "errors: run in one process with more clients than the open-file hard limit is a usage error") {
  rlimit lim{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &lim) == 0);
  if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max > 100'000'000) {
    MESSAGE("skipped: no finite open-file hard limit to exceed");
    return;
  }
  const auto clients = std::to_string(lim.rlim_max + 1);
  // Refused before any connection: the URL is never tried.
  check_usage_error("loadgen",
                    {"run", "--url", "http://127.0.0.1:1/", "--clients", clients, "--processes",
                     "1", "--expect-none"},
                    {"--clients", clients + " clients need",
                     "hard limit (ulimit -Hn) is " + std::to_string(lim.rlim_max), "ulimit -n"},
                    {"unreachable", "cannot connect"});
}
