#include "cli/run_command.hpp"

#include <curl/curl.h>

#include "cli/fleet_supervisor.hpp"
#include "cli/fleet_workers.hpp"
#include "cli/live_process.hpp"

namespace stampede {
namespace {

// How many clients one process may hold connections for; the workers, if more.
Parsed<std::int64_t> workers_of(const RunCommand& cmd) {
  return worker_count({cmd.scenario.fleet.clients, descriptor_room(), cmd.processes,
                       cmd.shard_given, cmd.dashboard.has_value()});
}

int run_checked(LiveProcess& process, const RunCommand& cmd) {
  const auto workers = workers_of(cmd);
  if (!workers) return process.refuse(kExitUsage, workers.error());
  if (auto code = process.preflight(*workers)) return *code;
  if (*workers > 1) return supervise_fleet(process.command(), *workers, process.admin());
  if (auto code = process.start()) return *code;
  process.drive();
  return process.finish();
}

}  // namespace

int run_run_command(const RunCommand& cmd) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int code = kExitUnreachable;
  {
    LiveProcess process(cmd);
    try {
      code = run_checked(process, cmd);
    } catch (const std::exception& e) {
      code = process.refuse(kExitUnreachable, std::string("harness failure: ") + e.what());
    }
  }
  curl_global_cleanup();
  return code;
}

}  // namespace stampede
