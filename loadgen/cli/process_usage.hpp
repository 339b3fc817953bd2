#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "live_section.hpp"

namespace stampede {

// This process's peak resident memory (ru_maxrss) and its CPU since it started, as getrusage
// says: an entry of the results' live.processes, in this role (and shard, for a run's).
ProcessUsage own_process_usage(std::string role, std::optional<std::int64_t> shard = {});

}  // namespace stampede
