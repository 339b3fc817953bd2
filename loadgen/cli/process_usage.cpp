#include "cli/process_usage.hpp"

#include <sys/resource.h>

namespace stampede {

ProcessUsage own_process_usage(std::string role, std::optional<std::int64_t> shard) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return {std::move(role), shard, usage.ru_maxrss, seconds(usage.ru_utime),
          seconds(usage.ru_stime)};
}

}  // namespace stampede
