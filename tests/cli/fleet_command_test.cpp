// How run, exec and run's supervisor judge a fleet at its end, by table: the checks' code, a
// stop that left items unfinished, an error found at the end; and what stopped it, as the
// results say.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "cli/fleet_command.hpp"
#include "exit_codes.hpp"

using namespace stampede;

TEST_CASE("a fleet's end: its checks' code, a stop that fails it, an error that is its case") {
  using State = JunitCase::State;
  const std::string stop = "stopped by a signal after 1.0 s with 3 items unfinished";
  struct Row {
    int checks;
    std::optional<std::string> stop;
    std::optional<FleetError> error;
    int code;
    State state;
    std::string message;
  };
  const Row rows[] = {
      {kExitOk, std::nullopt, std::nullopt, kExitOk, State::kPassed, ""},
      {kExitFailed, std::nullopt, std::nullopt, kExitFailed, State::kPassed, ""},
      {kExitUsage, std::nullopt, std::nullopt, kExitUsage, State::kPassed, ""},
      // A stop with items unfinished fails a fleet whose checks hold; a refused check stays 2.
      {kExitOk, stop, std::nullopt, kExitFailed, State::kFailed, stop},
      {kExitUsage, stop, std::nullopt, kExitUsage, State::kFailed, stop},
      // An error is the run's case, over a stop, and its code, over any verdict.
      {kExitOk, std::nullopt, FleetError{kExitUnreachable, "target unreachable"}, kExitUnreachable,
       State::kError, "target unreachable"},
      {kExitFailed, stop, FleetError{kExitUnreachable, "harness"}, kExitUnreachable, State::kError,
       "harness"},
      // A worker's usage error (2) makes a failed fleet's code 2, not 1.
      {kExitFailed, std::nullopt, FleetError{kExitUsage, "worker 1 of 3 ended with exit 2"},
       kExitUsage, State::kError, "worker 1 of 3 ended with exit 2"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.checks);
    CAPTURE(row.message);
    const auto j = judge_fleet(row.checks, row.stop, row.error);
    CHECK(j.code == row.code);
    CHECK(j.run_case.name == kRunCase);
    CHECK(j.run_case.state == row.state);
    CHECK(j.run_case.message == row.message);
  }
}

TEST_CASE("a fleet's end: what stopped it, as its results and stderr name it") {
  CHECK(stopped_by(FleetStopCause::kNone, "--max-duration 1h").empty());
  CHECK(stopped_by(FleetStopCause::kSignal, "--max-duration 1h") == "a signal");
  CHECK(stopped_by(FleetStopCause::kBound, "--max-duration 1h") == "--max-duration 1h");
  CHECK(stopped_by(FleetStopCause::kBound, "--timeout") == "--timeout");
}
