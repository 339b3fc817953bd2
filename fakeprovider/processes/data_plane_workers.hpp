#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parsed.hpp"
#include "process/process_group.hpp"
#include "server/data_plane.hpp"

namespace stampede {

struct WorkersConfig {
  DataPlaneConfig data;  // each worker's: its threads, its max_connections
  ProviderConfig provider;
  SendRules rules;
  double time_scale = 1.0;
  std::size_t processes = 2;
  std::int64_t stop_wait_ns = 0;  // DataPlane::stop's, at SIGTERM
};

struct DataPlaneWorkers {
  ProcessGroup group;
  std::vector<int> channels;  // this process's ends, worker after worker: the DecisionServer's
  int port = 0;
  // SIGTERM to every worker, which finishes what it holds; waits for them all. Names each
  // that did not exit 0.
  std::optional<std::string> stop();
};

// fakeprovider --processes N: N forked workers serve the data plane from one port (a
// SO_REUSEPORT socket each, the kernel spreading the connections), each with its own loops and
// descriptors, and ask this process, which owns the provider, to decide every request
// (RemoteAdmitter, DecisionServer; a channel per worker and a line per loop): one allowance, one
// clock, one record, exact as one process is. A worker stops at SIGINT or SIGTERM as the
// one-process data plane does, finishing what it holds, and dies with this process
// (PR_SET_PDEATHSIG: SIGTERM), so none outlives an owner that crashed. Call before this process
// starts any thread: a child of a threaded process may find a lock held forever.
Parsed<DataPlaneWorkers> start_data_plane_workers(const WorkersConfig& config);

}  // namespace stampede
