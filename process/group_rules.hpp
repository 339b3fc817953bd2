#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "process/process_end.hpp"

namespace stampede {

// The rules of a process group, apart from the processes: what an end means, whom it stops,
// what a signal asks for, when a stop turns into SIGKILL. No I/O here; process_group does that.

struct EndRules {
  // Exits 0..this are a member's own verdict (a run worker's 1: its checks failed); a higher
  // exit, or a death by a signal, is a failure.
  int last_good_exit = 0;
  // The members wait for each other at a gate (a start given once every one is ready): one
  // that ends before it opens leaves the rest waiting for ever, whatever its exit.
  bool gated = false;
  // A failure stops the rest: their results without it would not be the whole fleet's. Not
  // for members that are independent clients (loadgen exec's), whose ends are outcomes.
  bool stop_rest_on_failure = true;
};

bool end_failed(const ProcessEnd& end, int last_good_exit);

// The group when a member's end is read.
struct GroupMoment {
  bool gate_open = false;
  bool stopping = false;    // a failure, a bound or a signal has stopped it already
  std::size_t running = 0;  // the other members still running
};

struct EndVerdict {
  bool failed = false;     // the group failed with this end
  bool stop_rest = false;  // and the others are to be stopped now
};
EndVerdict judge_end(const ProcessEnd& end, const EndRules& rules, const GroupMoment& group);

// What a SIGINT or SIGTERM asks of the group: the first a graceful stop (members finish what
// they hold), a later one, or one that finds the group stopping already, an abort.
enum class SignalMove { kStop, kAbort };
SignalMove signal_move(int seen_before, bool stopping);

// Whether a stop's SIGKILL is due: its time (none: the stop waits for the members) passed and
// not sent yet.
bool kill_due(std::optional<std::int64_t> kill_at_ns, bool killed, std::int64_t now_ns);

// "worker 1 was killed by Killed; worker 2 exited 3": each member whose end is a failure, by
// index; nullopt when none is.
std::optional<std::string> failures_named(const std::vector<ProcessEnd>& ends, int last_good_exit);

}  // namespace stampede
