#pragma once

#include <cstddef>
#include <cstdint>

#include "parsed.hpp"
#include "processes/worker_group.hpp"
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
  WorkerGroup group;
  int port = 0;
};

// fakeprovider --processes N: N forked workers serve the data plane from one port (a
// SO_REUSEPORT socket each, the kernel spreading the connections), each with its own loops and
// descriptors, and ask this process, which owns the provider, to decide every request
// (RemoteAdmitter, DecisionServer; a channel per worker and a line per loop): one allowance, one
// clock, one record, exact as one process is. A worker stops at SIGINT or SIGTERM as the
// one-process data plane does, finishing what it holds. Call before this process starts any thread.
Parsed<DataPlaneWorkers> start_data_plane_workers(const WorkersConfig& config);

}  // namespace stampede
