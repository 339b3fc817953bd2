// loadgen exec's mechanics with small shell programs as the fleet: what each process is told,
// how its end becomes its clients' outcome, the release, the bounds and signals, the logs,
// and bad input: each a clear one-line error or a documented outcome.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "exec_support.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace exec_test;
using support::FakeProvider;
using support::run_exec;
using support::TempDir;

namespace {

std::vector<std::string> fleet_args(const FakeProvider& p, const std::string& clients) {
  return {"--clients",        clients,   "--url",          p.url(),
          "--provider-admin", p.admin(), "--max-duration", "30s"};
}

bool one_line(const std::string& err) {
  return !err.empty() && err.find('\n') == err.size() - 1;
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// This user's tasks now, as RLIMIT_NPROC counts them.
long user_tasks() {
  long tasks = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    std::istringstream status(support::read_file(entry.path().string() + "/status"));
    bool mine = false;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Uid:", 0) == 0) mine = std::stoul(line.substr(4)) == getuid();
      if (line.rfind("Threads:", 0) == 0 && mine) tasks += std::stol(line.substr(8));
    }
  }
  return tasks;
}

}  // namespace

TEST_CASE(
    "each process gets its clients in STAMPEDE_ variables, {url} and {client} in "
    "its arguments") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = fleet_args(provider, "7");
  args.insert(args.end(), {"--per-process", "3"});
  // Each process writes what it was given to its own file, named by {client}.
  const std::string script =
      "printf '%s\\n' \"$@\" \"$STAMPEDE_URL\" \"$STAMPEDE_CLIENT_ID\" \"$STAMPEDE_CLIENTS\" "
      "\"$STAMPEDE_PER_PROCESS\" > " +
      dir.file("given.{client}");
  const auto r =
      run_exec(dir, args, {"sh", "-c", script, "sh", "{url}", "X-Client-Id: {client}", "{x}"});
  INFO(r.err);
  CHECK(r.code == 0);
  check_accounted(r.results, 7);
  CHECK(r.results["exec"]["processes"] == 3);
  const std::string url = provider.url();
  CHECK(support::read_file(dir.file("given.0")) ==
        url + "\nX-Client-Id: 0\n{x}\n" + url + "\n0\n7\n3\n");
  CHECK(support::read_file(dir.file("given.3")) ==
        url + "\nX-Client-Id: 3\n{x}\n" + url + "\n3\n7\n3\n");
  // The last process runs what is left.
  CHECK(support::read_file(dir.file("given.6")) ==
        url + "\nX-Client-Id: 6\n{x}\n" + url + "\n6\n7\n1\n");
  CHECK_FALSE(exists(dir.file("given.1")));
  CHECK(r.results["exec"]["command"][4] == "{url}");  // as given, before the replacement
}

TEST_CASE("each process's exit status is its clients' outcome; a bound kills the rest") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = fleet_args(provider, "6");
  args.insert(args.end(), {"--timeout", "1s", "--grace", "300ms"});
  const auto r = run_exec(dir, args,
                          {"sh", "-c",
                           "case $STAMPEDE_CLIENT_ID in 0|1) exit 0;; 2) exit 3;; 3) kill -USR1 "
                           "$$;; *) exec sleep 30;; esac"});
  CHECK(r.code == 1);  // stopped with clients unfinished
  // Said as `run` says it: by what, after how long, with how many unfinished.
  CHECK(r.err.find("stopped by --timeout after ") != std::string::npos);
  CHECK(r.err.find(" s with 2 items unfinished") != std::string::npos);
  check_accounted(r.results, 6);
  CHECK(count(r.results, "delivered") == 2);
  CHECK(count(r.results, "dead_lettered") == 2);
  CHECK(count(r.results, "unfinished") == 2);
  CHECK(r.results["exec"]["stopped"] == "timeout");
  CHECK(r.results["exec"]["process_ends"] ==
        nlohmann::json{{"0", 2}, {"3", 1}, {"SIGUSR1", 1}, {"SIGTERM", 2}});
  REQUIRE(r.dead_letters.size() == 4);  // the dead-lettered first, then the unfinished
  CHECK(r.dead_letters[0] == nlohmann::json{{"client", 2},
                                            {"process", 2},
                                            {"reason", "exit_status"},
                                            {"end", "3"},
                                            {"t_s", r.dead_letters[0]["t_s"]}});
  CHECK(r.dead_letters[1]["reason"] == "signal");
  CHECK(r.dead_letters[1]["end"] == "SIGUSR1");
  CHECK(r.dead_letters[2]["reason"] == "unfinished");
  CHECK(r.dead_letters[3]["client"] == 5);
}

TEST_CASE(
    "a process that ignores SIGTERM is killed after --grace, its clients "
    "unfinished") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = fleet_args(provider, "3");
  args.insert(args.end(), {"--timeout", "500ms", "--grace", "300ms", "--wait-ready"});
  // Ready once deaf to SIGTERM: on a loaded machine a shell can take longer than the timeout
  // to reach its trap, and then dies of the SIGTERM the test means it to ignore.
  const auto r = run_exec(dir, args,
                          {"sh", "-c",
                           "trap '' TERM; printf r >&$STAMPEDE_READY_FD; "
                           "read -r _ <&$STAMPEDE_RELEASE_FD; while :; do sleep 0.1; done"});
  CHECK(r.code == 1);
  check_accounted(r.results, 3);
  CHECK(count(r.results, "unfinished") == 3);
  CHECK(r.results["exec"]["process_ends"] == nlohmann::json{{"SIGKILL", 3}});
}

TEST_CASE("SIGTERM stops the fleet, kills every process and writes results for all") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = fleet_args(provider, "5");
  args.insert(args.begin(), "exec");
  args.insert(args.end(), {"--out", dir.file("results.json"), "--quiet", "--", "sh", "-c",
                           "echo $$ > " + dir.file("pid.{client}") + "; exec sleep 30"});
  support::Process loadgen(support::bin_path("loadgen"), args, dir, "loadgen",
                           support::kNoProxyForLoopback);
  REQUIRE(support::wait_until(
      [&] {
        for (int c = 0; c < 5; ++c) {
          if (support::read_file(dir.file("pid." + std::to_string(c))).empty()) return false;
        }
        return true;
      },
      30'000));
  loadgen.signal(SIGTERM);
  CHECK(loadgen.wait(kWaitMs) == 1);
  CHECK(loadgen.err().find("Terminated: stopping the fleet") != std::string::npos);
  const auto r = nlohmann::json::parse(support::read_file(dir.file("results.json")));
  check_accounted(r, 5);
  CHECK(count(r, "unfinished") == 5);
  CHECK(r["exec"]["stopped"] == "signal");
  for (int c = 0; c < 5; ++c) {
    const int pid = std::stoi(support::read_file(dir.file("pid." + std::to_string(c))));
    CHECK(kill(pid, 0) != 0);  // reaped by loadgen: gone
  }
}

TEST_CASE("--wait-ready releases the fleet only once every process said ready") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = fleet_args(provider, "4");
  args.push_back("--wait-ready");
  // Client c is ready after c tenths of a second; each notes when it said ready and when it
  // was released (nanoseconds since the epoch, one clock for all).
  const std::string script = "sleep 0.$STAMPEDE_CLIENT_ID; date +%s%N > " +
                             dir.file("ready.{client}") + "; printf r >&$STAMPEDE_READY_FD; " +
                             "read -r _ <&$STAMPEDE_RELEASE_FD; date +%s%N > " +
                             dir.file("released.{client}");
  const auto r = run_exec(dir, args, {"sh", "-c", script});
  INFO(r.err);
  CHECK(r.code == 0);
  check_accounted(r.results, 4);
  std::vector<long long> ready, released;
  for (int c = 0; c < 4; ++c) {
    ready.push_back(std::stoll(support::read_file(dir.file("ready." + std::to_string(c)))));
    released.push_back(std::stoll(support::read_file(dir.file("released." + std::to_string(c)))));
  }
  CHECK(*std::min_element(released.begin(), released.end()) >=
        *std::max_element(ready.begin(), ready.end()));
  CHECK(r.results["exec"]["wait_ready"] == true);
}

TEST_CASE(
    "a fleet stopped before its release has results for every client and no provider "
    "counts") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = std::vector<std::string>{"--clients",
                                       "3",
                                       "--url",
                                       provider.url(),
                                       "--provider-admin",
                                       provider.admin(),
                                       "--wait-ready",
                                       "--max-duration",
                                       "1s",
                                       "--grace",
                                       "200ms"};
  // Never says ready: the release never comes, the bound does.
  const auto r = run_exec(dir, args, {"sleep", "30"});
  CHECK(r.code == 1);
  check_accounted(r.results, 3);
  CHECK(count(r.results, "unfinished") == 3);
  CHECK(r.results["exec"]["released"] == false);
  CHECK(r.results["exec"]["stopped"] == "max_duration");
  CHECK(r.results["provider"]["error"].is_string());
}

TEST_CASE(
    "a process printing megabytes gets a bounded log and does not stall the "
    "fleet") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = fleet_args(provider, "4");
  args.insert(args.end(), {"--logs", dir.file("logs")});
  const auto r = run_exec(
      dir, args, {"sh", "-c", "echo first line; echo to stderr >&2; head -c 3000000 /dev/zero"});
  INFO(r.err);
  CHECK(r.code == 0);
  check_accounted(r.results, 4);
  CHECK(count(r.results, "delivered") == 4);
  CHECK(r.results["exec"]["output_bytes"] == 4 * (3'000'000 + 11 + 10));
  CHECK(r.results["exec"]["logs_truncated"] == 4);
  for (int c = 0; c < 4; ++c) {
    const auto log = support::read_file(dir.file("logs/client-" + std::to_string(c) + ".log"));
    CHECK(log.rfind("first line\nto stderr\n", 0) == 0);  // stdout and stderr, in order
    CHECK(log.find("[loadgen exec: log cut at 65536 bytes (--log-limit); 2934485 more bytes "
                   "dropped]\n") == 65536 + 1);
  }
  // Without --logs the output is read and dropped: the fleet still ends.
  const auto quiet =
      run_exec(dir, fleet_args(provider, "4"), {"sh", "-c", "head -c 3000000 /dev/zero"});
  CHECK(quiet.code == 0);
  CHECK(count(quiet.results, "delivered") == 4);
}

TEST_CASE("a CMD that does not exist is one line, exit 2, and nothing starts") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  for (const auto& [cmd, says] : std::vector<std::pair<std::string, std::string>>{
           {"no-such-command-here", "exec CMD 'no-such-command-here': no such command in PATH"},
           {dir.file("missing"), "No such file or directory"},
           {dir.file(""), "a folder, not a program"}}) {
    CAPTURE(cmd);
    const auto r = run_exec(dir, fleet_args(provider, "3"), {cmd});
    CHECK(r.code == 2);
    CHECK(one_line(r.err));
    CHECK(r.err.find(says) != std::string::npos);
    CHECK(r.results.is_null());
  }
  CHECK(provider.stats()["requests"] == 0);
}

TEST_CASE("a CMD that exits at once accounts for every client by its status") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  const auto failing = run_exec(dir, fleet_args(provider, "5"), {"false"});
  CHECK(failing.code == 1);  // nothing delivered fails, as for `run` (delivered > 0)
  check_accounted(failing.results, 5);
  CHECK(count(failing.results, "dead_lettered") == 5);
  CHECK(failing.dead_letters.size() == 5);
  CHECK(failing.err.find("the provider saw no request from the fleet") != std::string::npos);
  const auto passing = run_exec(dir,
                                {"--clients", "5", "--url", provider.url(), "--provider-admin",
                                 provider.admin(), "--assert", "requests >= 5"},
                                {"true"});
  CHECK(passing.code == 1);  // delivered, by exit status; the assertion sees no request
  CHECK(count(passing.results, "delivered") == 5);
}

TEST_CASE("a CMD that cannot be run counts its clients dead-lettered and exits 3") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  // Executable, but no program: execve answers ENOEXEC (a shell would guess; exec does not).
  support::write_file(dir.file("not-a-program"), "just text\n");
  chmod(dir.file("not-a-program").c_str(), 0755);
  const auto r = run_exec(dir, fleet_args(provider, "3"), {dir.file("not-a-program")});
  CHECK(r.code == 3);
  CHECK(r.err.find("could not be run in 3 of 3 processes: Exec format error") != std::string::npos);
  check_accounted(r.results, 3);
  CHECK(count(r.results, "dead_lettered") == 3);
  CHECK(r.results["exec"]["exec_failures"] == 3);
  REQUIRE(r.dead_letters.size() == 3);
  CHECK(r.dead_letters[0]["reason"] == "exec_failed");
}

TEST_CASE("more processes than ulimit -u allows is one line, exit 2, nothing started") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  // Room for what runs now and a little more (a sanitizer's threads), not for 2,000 processes.
  // prlimit (util-linux) sets RLIMIT_NPROC and execs loadgen in its place. The other tests
  // beside this one end their processes and threads meanwhile, which gives loadgen room the
  // count here did not see: CI once saw room for 200, so the fleet is ten times that.
  const long limit = user_tasks() + 60;
  std::vector<std::string> args{"--nproc=" + std::to_string(limit), support::bin_path("loadgen"),
                                "exec"};
  for (const auto& a : fleet_args(provider, "2000")) args.push_back(a);
  args.insert(args.end(), {"--", "touch", dir.file("started.{client}")});
  support::Process sh("/usr/bin/prlimit", args, dir, "prlimit", support::kNoProxyForLoopback);
  CHECK(sh.wait(kWaitMs) == 2);
  const auto err = sh.err();
  INFO(err);
  CHECK(one_line(err));
  CHECK(err.find("--clients: 2000 clients in 2000 processes need 2001 more tasks") !=
        std::string::npos);
  CHECK(err.find("ulimit -u allows this user " + std::to_string(limit)) != std::string::npos);
  CHECK(err.find("--per-process K") != std::string::npos);
  CHECK_FALSE(exists(dir.file("started.0")));
}

TEST_CASE("an unreachable provider admin is one line, exit 3, and no process starts") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  const support::RefusedPort dead;
  const auto r =
      run_exec(dir, {"--clients", "3", "--url", provider.url(), "--provider-admin", dead.url("")},
               {"touch", dir.file("started.{client}")});
  CHECK(r.code == 3);
  CHECK(one_line(r.err));
  CHECK(r.err.find("loadgen: provider admin unreachable: GET http://127.0.0.1:") == 0);
  CHECK_FALSE(exists(dir.file("started.0")));
  CHECK(r.results.is_null());
}

TEST_CASE("the provider going away mid-run leaves results with every client, exit 3") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  auto args = fleet_args(provider, "3");
  args.insert(args.begin(), "exec");
  args.insert(args.end(), {"--out", dir.file("results.json"), "--quiet", "--", "sh", "-c",
                           "touch " + dir.file("up.{client}") + "; while [ ! -e " + dir.file("go") +
                               " ]; do sleep 0.05; done"});
  support::Process loadgen(support::bin_path("loadgen"), args, dir, "loadgen",
                           support::kNoProxyForLoopback);
  REQUIRE(support::wait_until(
      [&] {
        return exists(dir.file("up.0")) && exists(dir.file("up.1")) && exists(dir.file("up.2"));
      },
      30'000));
  provider.process().signal(SIGKILL);
  provider.process().wait(10'000);
  support::write_file(dir.file("go"), "");
  CHECK(loadgen.wait(kWaitMs) == 3);
  CHECK(loadgen.err().find("provider stats unavailable") != std::string::npos);
  const auto r = nlohmann::json::parse(support::read_file(dir.file("results.json")));
  check_accounted(r, 3);
  CHECK(count(r, "delivered") == 3);
  CHECK(r["provider"]["error"].is_string());
  CHECK(r["histograms"]["provider_side"] == false);
}

TEST_CASE("--time-scale other than 1, or a provider at another scale, is one line") {
  TempDir dir;
  {
    FakeProvider scaled({"--time-scale", "0.5"});
    REQUIRE(scaled.started());
    const auto r = run_exec(dir, fleet_args(scaled, "2"), {"touch", dir.file("started")});
    CHECK(r.code == 2);
    CHECK(one_line(r.err));
    CHECK(r.err.find("the provider runs at --time-scale 0.5; real clients sleep wall time") !=
          std::string::npos);
    CHECK_FALSE(exists(dir.file("started")));
  }
  FakeProvider provider({});
  REQUIRE(provider.started());
  auto args = fleet_args(provider, "2");
  args.insert(args.end(), {"--time-scale", "0.1"});
  const auto r = run_exec(dir, args, {"true"});
  CHECK(r.code == 2);
  CHECK(one_line(r.err));
  CHECK(r.err.find("--time-scale: exec takes only 1: real clients sleep wall time") !=
        std::string::npos);
}

TEST_CASE("usage errors are one line naming the flag") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  struct Row {
    std::vector<std::string> args;
    std::string says;
  };
  const std::string url = provider.url(), admin = provider.admin();
  for (const auto& row : std::vector<Row>{
           {{"--clients", "3", "--per-process", "4", "--url", url, "--provider-admin", admin, "--",
             "true"},
            "--per-process: 4 clients per process, but --clients is 3"},
           {{"--clients", "0", "--url", url, "--provider-admin", admin, "--", "true"}, "--clients"},
           {{"--clients", "3", "--url", url, "--", "true"}, "--provider-admin is required"},
           {{"--clients", "3", "--url", url, "--provider-admin", admin}, "CMD is required"},
           {{"--clients", "3", "--url", url, "--provider-admin", admin, "--timeout", "0s", "--",
             "true"},
            "--timeout: must be longer than zero"},
           {{"--clients", "3", "--url", url, "--provider-admin", admin, "--logs",
             dir.file("no/such/parent"), "--", "true"},
            "--logs: cannot make the folder"},
           {{"--clients", "3", "--url", url, "--provider-admin", admin, "--workload", "trace", "--",
             "true"},
            "the trace workload needs a trace file, e.g. --trace"},
           {{"--clients", "3", "--per-process", "3", "--url", url, "--provider-admin", admin,
             "--workload", "trace", "--trace", dir.write("t.csv", "time\n0\n"), "--", "true"},
            "--per-process: with --workload trace each arrival is one process of one client"},
           {{"--clients", "3", "--url", url, "--provider-admin", admin, "--workload", "queue", "--",
             "true"},
            "--workload: exec runs storm (the fleet released together) or trace"},
           // CMD's own flags before "--" are loadgen's: the line says where they go.
           {{"--clients", "3", "--url", url, "--provider-admin", admin, "curl", "-s"},
            "loadgen exec takes CMD and its ARGS after --"},
       }) {
    std::vector<std::string> args{"exec"};
    args.insert(args.end(), row.args.begin(), row.args.end());
    support::Process p(support::bin_path("loadgen"), args, dir, "loadgen");
    CAPTURE(row.says);
    CHECK(p.wait(kWaitMs) == 2);
    CHECK(one_line(p.err()));
    CHECK(p.err().find(row.says) != std::string::npos);
  }
}
