#pragma once

#include <cstdint>
#include <optional>

#include "cli/run_command.hpp"
#include "live/provider_admin.hpp"

namespace stampede {

// `loadgen run` for a fleet in several processes: starts `workers` copies of this program,
// worker i running shard i/workers against one t=0 (the user's --start-at, or one it gives
// once every worker has opened its connections: fleet_workers.hpp), each writing its results
// into a directory of the supervisor's and its progress on a pipe; passes
// SIGINT and SIGTERM on to them; merges their results with `loadgen merge`'s code, the
// provider's view read once after the last worker ended; and writes the user's files, the
// summary and the exit code as a one-process run would. A worker that failed (an exit other
// than 0 or 1, a signal, no results) is named on stderr, the others are stopped, what the rest
// wrote is merged (--partial) and the exit is 3 (2 for a worker's usage error); its directory
// is then kept and named.
int supervise_fleet(const RunCommand& cmd, std::int64_t workers,
                    std::optional<ProviderAdmin>& admin);

}  // namespace stampede
