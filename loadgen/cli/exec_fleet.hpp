#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/exec_plan.hpp"
#include "cli/signal_descriptor.hpp"
#include "policy/arrival_schedule.hpp"
#include "process/process_group.hpp"
#include "trace_recording.hpp"

namespace stampede {

// The processes of `loadgen exec`: spawned held, released together, waited for within the
// bounds, killed at a stop; their output read into bounded logs.
//
// Held: each child is forked into one process group (process_group.hpp) and blocks reading the
// release pipe before it runs the program, so the fork and the setup are done for every process
// before any of them starts; the release closes the pipe's write end and every child's read returns
// at once. With wait_ready each child runs the program at once instead, and the program says
// when it is ready (one byte to $STAMPEDE_READY_FD) and waits for the release itself (reads
// $STAMPEDE_RELEASE_FD to its end), so its start-up (an interpreter, imports, a client
// object) is done before the release too.
//
// With arrivals (exec --workload trace) nothing is held: the fleet is released empty, and at
// each arrival's time one process runs the program as a free client, at most `clients` at
// once; an arrival that finds every client busy is dropped and counted (the open model).

// An arrival of the trace: due this long after the release, and its item (the fleet sets
// its client).
struct ExecArrival {
  std::int64_t due_ns = 0;
  ExecItem item;
};
// The arrivals in time order, one at each call; none: no more.
using ExecArrivals = std::function<std::optional<ExecArrival>()>;

struct FleetSpec {
  std::string program;            // the path execve runs: CMD, looked up in PATH beforehand
  std::string command;            // CMD as given, argv[0]
  std::vector<std::string> args;  // ARGS as given, {url} and {client} not yet replaced
  std::string url;
  std::int64_t clients = 1;
  std::int64_t per_process = 1;
  std::vector<std::string> environment;  // loadgen's, "NAME=value"
  bool wait_ready = false;
  std::string logs_dir;  // each process's output to client-ID.log here; empty: read, dropped
  std::int64_t log_limit_bytes = 64 * 1024;
  ExecArrivals arrivals;  // set: one process per arrival, per_process 1, no wait_ready
};

struct FleetBounds {
  std::int64_t deadline_steady_ns = 0;     // --max-duration: stop then, released or not
  std::optional<std::int64_t> timeout_ns;  // --timeout: stop this long after the release
  std::int64_t grace_ns = 0;               // between SIGTERM and SIGKILL at a stop
};

enum class FleetStop { kNone, kSignal, kMaxDuration, kTimeout };
std::string_view to_string(FleetStop s);

struct FleetProcess {
  ExecProcess slot;
  pid_t pid = -1;
  bool ended = false;
  ProcessEnd end;
  std::int64_t end_steady_ns = 0;
  std::int64_t output_bytes = 0;     // everything it wrote to stdout and stderr
  std::int64_t log_dropped = 0;      // beyond --log-limit
  int exec_errno = 0;                // the program could not be run (execve failed)
  std::optional<std::int64_t> item;  // an arrival's process: its item
  std::int64_t due_ns = 0;           // an arrival's process: its time after the release
};

struct FleetRun {
  std::vector<FleetProcess> processes;
  FleetStop stopped = FleetStop::kNone;
  bool released = false;
  std::int64_t spawned_steady_ns = 0;  // every process held
  std::int64_t release_steady_ns = 0;
  std::int64_t end_steady_ns = 0;
  std::vector<std::string> warnings;  // log files that could not be written
  // With arrivals: those that found every client busy, and the playback's record (each
  // process's start is its item's first send as loadgen sees it).
  std::int64_t dropped = 0;
  std::int64_t start_failures = 0;  // arrivals whose process could not be started: unfinished
  std::string start_error;          // the first one's
  std::optional<TraceRecording> trace;
};

class ExecFleet {
 public:
  ExecFleet(FleetSpec spec, const SignalDescriptor& signals);
  ~ExecFleet();  // every descriptor closed; the group kills what still runs
  ExecFleet(const ExecFleet&) = delete;
  ExecFleet& operator=(const ExecFleet&) = delete;

  // Forks every process, held; the error when one cannot be (those forked are then killed,
  // none having run the program, unless wait_ready).
  std::optional<std::string> spawn();

  // Waits for readiness (wait_ready), calls before_release (the provider's reset: an error
  // there kills the fleet unreleased and is returned), releases, calls after_release, and
  // waits until every process ended. A signal on the descriptor or a bound stops the fleet:
  // SIGTERM to each process and its group, SIGKILL after the grace (at once on a second
  // signal). Descendants left behind when every process has ended are killed with the group.
  std::optional<std::string> run(const FleetBounds& bounds,
                                 const std::function<std::optional<std::string>()>& before_release,
                                 const std::function<void()>& after_release);

  // Each second while it runs: how many processes are running and how many ended.
  void on_tick(std::function<void(const FleetRun&)> tick) { tick_ = std::move(tick); }

  const FleetRun& result() const { return run_; }

 private:
  std::optional<std::string> open_channels();
  ProcessGroup::Launched spawn_one(std::size_t index, pid_t group);
  ProcessGroup::Launched spawn_item(std::size_t index, pid_t group, const ExecArrival& arrival);
  ProcessGroup::Launched fork_child(std::size_t index, pid_t group, FleetProcess p,
                                    std::vector<std::string> argv, std::vector<std::string> env,
                                    const std::string& log_name);
  void start_due_arrivals(std::int64_t now_ns);
  bool arrivals_pending() const { return next_.has_value() && run_.stopped == FleetStop::kNone; }
  void handle(std::uint64_t tag, std::int64_t now_ns);
  void read_output(std::size_t index);
  void close_log(std::size_t index);
  void read_exec_errors();
  void reap(std::int64_t now_ns);
  void stop(FleetStop why, std::int64_t now_ns, const FleetBounds& bounds);
  void release();
  void finish();
  std::int64_t next_wake_ns(const FleetBounds& bounds, std::int64_t now_ns) const;

  FleetSpec spec_;
  const SignalDescriptor& signals_;
  FleetRun run_;
  std::vector<int> out_fds_;  // per process: the read end of its stdout and stderr
  std::vector<int> log_fds_;
  std::vector<BoundedLog> logs_;
  int epoll_fd_ = -1;
  int devnull_fd_ = -1;
  int release_fds_[2] = {-1, -1};
  int ready_fds_[2] = {-1, -1};
  int exec_error_fds_[2] = {-1, -1};
  // Independent clients: an end is an outcome, never a reason to stop the others.
  ProcessGroup group_{{{.stop_rest_on_failure = false}, /*hold_group=*/true}};
  std::int64_t ready_ = 0;    // bytes read from the ready pipe
  bool signal_stop_ = false;  // the first SIGINT or SIGTERM: the loop stops the fleet
  std::function<void(const FleetRun&)> tick_;
  std::optional<ExecArrival> next_;  // with arrivals: the next one due
  ClientPool pool_;                  // with arrivals: the clients not running a process
};

}  // namespace stampede
