#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"
#include "process/process_end.hpp"

namespace stampede {

// `loadgen run` as a supervisor of worker processes, the pure parts: how many workers the
// fleet needs, what each is told, where its files go. No I/O here; fleet_supervisor does that.

// What decides the number of workers.
struct FleetShape {
  std::int64_t clients = 0;    // the fleet's
  std::int64_t room = 0;       // clients one process may hold connections for (descriptor_room)
  std::int64_t requested = 0;  // --processes; 0: as many as the room needs
  bool shard_given = false;    // --shard, or the Indexed Job's variables
  bool dashboard = false;      // --dashboard
};

// 1: the fleet runs in this process (and the descriptor check says if it cannot, with how to
// raise the limit: so for --processes 1 too); more: that
// many workers, shard i/N each. A shard given by the user is one process: auto workers do not
// split it further (a queue's split would change), so --processes with --shard is an error,
// and so are more processes than clients or fewer than the room needs, and --dashboard, which
// serves one process's clients, beside several.
Parsed<std::int64_t> worker_count(const FleetShape& shape);

// When the supervisor picks the start (no --start-at of the user's), it picks it only once
// every worker has opened its connections: no guess at how long that takes holds on a loaded
// machine. The start is then this much ahead: the start line's way through a pipe, a worker's
// wake-up and worker 0's provider reset naming it, all before it.
inline constexpr std::int64_t kFleetStartMarginNs = 500'000'000;

// The ready/go exchange, one line each way: a worker's "ready" on its progress descriptor
// once its connections are open, and the supervisor's start line, the shared t=0 in Unix ns.
inline constexpr std::string_view kWorkerReadyLine = "ready";
std::string format_start_line(std::int64_t start_unix_ns);
// A line without its newline; nullopt if it is not one.
std::optional<std::int64_t> parse_start_line(std::string_view line);

// The supervisor's progress line before the workers' first reports: "opening connections: 2
// of 3 workers ready", then "all 3 workers ready, waiting for the start".
std::string format_fleet_waiting(std::int64_t ready, std::int64_t count);

// A worker's part in the fleet's exit code: 0 when its results count (it ran to its verdict,
// 0 or 1, and wrote them); 2 when it found a usage error; else 3, a harness failure. end:
// none when it never ended.
int worker_exit_code(const std::optional<ProcessEnd>& end, bool wrote_results);

// Worker index's files in the supervisor's directory.
struct WorkerFiles {
  std::string results, dead_letters, attempts, errors;
};
WorkerFiles worker_files(const std::string& dir, std::int64_t index);

// Worker index of count's arguments after the program: the worker's command, its shard, the
// directory, then run's arguments as given (a --start-at of the user's among them), whose
// output flags the worker replaces with its files in dir.
std::vector<std::string> worker_arguments(const std::vector<std::string>& run_args,
                                          std::int64_t index, std::int64_t count,
                                          const std::string& dir);

// The hidden command a worker runs (fleet_worker_command.hpp) and its flag for the directory;
// the descriptor it writes on (its "ready", then its progress reports:
// format_progress_report), and the one it reads its start line from when it has no --start-at
// (a pipe from the supervisor, whose end without a line means the supervisor is gone).
inline constexpr const char* kFleetWorkerCommand = "fleet-worker";
inline constexpr const char* kFleetWorkerDirFlag = "--dir";
inline constexpr int kWorkerProgressFd = 3;
inline constexpr int kWorkerStartFd = 4;

}  // namespace stampede
