// The process group's rules, apart from any process: what an end means, whom it stops, what a
// signal asks for, when a stop's SIGKILL goes.
#include <doctest/doctest.h>

#include <signal.h>
#include <string.h>

#include "process/group_rules.hpp"

using namespace stampede;

namespace {

ProcessEnd exited(int code) {
  return {true, code, 0, false};
}
ProcessEnd killed(int sig) {
  return {false, 0, sig, false};
}

}  // namespace

TEST_CASE("process group: an end fails the group above the last good exit, or unstarted") {
  struct Row {
    const char* what;
    ProcessEnd end;
    EndRules rules;
    GroupMoment group;
    bool failed, stop_rest;
  };
  const EndRules run_workers{1, true, true};       // loadgen run's: 1 is a verdict
  const EndRules run_given_start{1, false, true};  // with the user's --start-at: no gate
  const EndRules server{0, false, true};           // fakeprovider's
  const EndRules clients{0, false, false};         // loadgen exec's: ends are outcomes
  for (const Row& row : {
           Row{"a verdict, after the start",
               exited(1),
               run_workers,
               {true, false, 2},
               false,
               false},
           Row{"a harness failure", exited(3), run_workers, {true, false, 2}, true, true},
           Row{"a usage error", exited(2), run_workers, {true, false, 2}, true, true},
           Row{"killed", killed(SIGKILL), run_workers, {true, false, 2}, true, true},
           Row{"a clean end before the start",
               exited(0),
               run_workers,
               {false, false, 2},
               true,
               true},
           Row{"no gate to wait at", exited(0), run_given_start, {false, false, 2}, false, false},
           Row{"the rest stopped already",
               killed(SIGKILL),
               run_workers,
               {true, true, 2},
               true,
               false},
           Row{"no one left to stop", exited(3), run_workers, {true, false, 0}, true, false},
           Row{"a server's worker exiting 1", exited(1), server, {false, false, 1}, true, true},
           Row{"a server's worker exiting 0", exited(0), server, {false, false, 1}, false, false},
           Row{"a client dead-lettered", exited(1), clients, {true, false, 5}, true, false},
           Row{"a client killed", killed(SIGSEGV), clients, {true, false, 5}, true, false},
       }) {
    CAPTURE(row.what);
    const EndVerdict v = judge_end(row.end, row.rules, row.group);
    CHECK(v.failed == row.failed);
    CHECK(v.stop_rest == row.stop_rest);
  }
}

TEST_CASE(
    "process group: the first signal stops gracefully, a later one or one while stopping aborts") {
  struct Row {
    int seen_before;
    bool stopping;
    SignalMove move;
  };
  for (const Row& row : {
           Row{0, false, SignalMove::kStop},
           Row{1, false, SignalMove::kAbort},
           Row{5, false, SignalMove::kAbort},
           Row{0, true, SignalMove::kAbort},  // a bound or a failure stopped it: kill at once
           Row{1, true, SignalMove::kAbort},
       }) {
    CAPTURE(row.seen_before);
    CAPTURE(row.stopping);
    CHECK(signal_move(row.seen_before, row.stopping) == row.move);
  }
}

TEST_CASE("process group: a stop's SIGKILL is due once its time passed, and only once") {
  struct Row {
    std::optional<std::int64_t> kill_at;
    bool killed;
    std::int64_t now;
    bool due;
  };
  for (const Row& row : {
           Row{std::nullopt, false, 1'000, false},  // a stop that waits for the members
           Row{500, false, 499, false}, Row{500, false, 500, true}, Row{500, false, 9'000, true},
           Row{500, true, 9'000, false},  // sent already
       }) {
    CAPTURE(row.now);
    CHECK(kill_due(row.kill_at, row.killed, row.now) == row.due);
  }
}

TEST_CASE("process group: each failed member named by index, none when all ended well") {
  CHECK_FALSE(failures_named({exited(0), exited(0)}, 0));
  CHECK_FALSE(failures_named({exited(1), exited(0)}, 1));
  const auto named = failures_named({exited(0), killed(SIGKILL), exited(3)}, 0);
  REQUIRE(named);
  CHECK(*named ==
        std::string("worker 1 was killed by ") + strsignal(SIGKILL) + "; worker 2 exited 3");
}

TEST_CASE("process group: waitpid's status read as an exit or a signal, labelled") {
  const ProcessEnd code = process_end(3 << 8);
  CHECK(code.exited);
  CHECK(code.exit_code == 3);
  CHECK(end_label(code) == "3");
  const ProcessEnd sig = process_end(SIGKILL);
  CHECK_FALSE(sig.exited);
  CHECK(sig.term_signal == SIGKILL);
  CHECK(end_label(sig) == "SIGKILL");
}
