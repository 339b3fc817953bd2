#include "cli/process_usage.hpp"

#include <sys/resource.h>

namespace stampede {

nlohmann::json own_process_usage() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return {{"max_rss_kib", usage.ru_maxrss},
          {"cpu_user_s", seconds(usage.ru_utime)},
          {"cpu_sys_s", seconds(usage.ru_stime)}};
}

}  // namespace stampede
