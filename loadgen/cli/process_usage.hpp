#pragma once

#include <nlohmann/json.hpp>

namespace stampede {

// This process's peak resident memory (ru_maxrss) and its CPU since it started, as getrusage
// says: {"max_rss_kib", "cpu_user_s", "cpu_sys_s"}, an entry of the results' live.processes
// with the role the caller adds.
nlohmann::json own_process_usage();

}  // namespace stampede
