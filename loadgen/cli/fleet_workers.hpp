#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parsed.hpp"

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

// Wall time from the supervisor's start to the workers' shared t=0: enough for each to start,
// probe the target and open its connections (about 100 us each on a loaded machine, measured
// 1.4 s for 15,000), twice over. A worker past it starts at once and says how late.
std::int64_t worker_start_lead_ns(std::int64_t clients_per_worker);

// Worker index's files in the supervisor's directory.
struct WorkerFiles {
  std::string results, dead_letters, attempts, errors;
};
WorkerFiles worker_files(const std::string& dir, std::int64_t index);

// Worker index of count's arguments after the program: `run`, its shard and the shared start
// (unless the user gave --start-at: run_args has it), the directory, then run's arguments as
// given, whose output flags the worker replaces with its files in dir.
std::vector<std::string> worker_arguments(const std::vector<std::string>& run_args,
                                          std::int64_t index, std::int64_t count,
                                          const std::string& start_at, const std::string& dir);

// The hidden flag that makes `loadgen run` a worker, and the descriptor it reports its
// progress on (format_progress_report).
inline constexpr const char* kFleetWorkerFlag = "--fleet-worker";
inline constexpr int kWorkerProgressFd = 3;

}  // namespace stampede
