#include "cli/run_command.hpp"

#include <memory>

#include "cli/fleet_supervisor.hpp"
#include "cli/fleet_workers.hpp"
#include "cli/live_process.hpp"

namespace stampede {
namespace {

// `loadgen run`: the fleet in this process, or, beyond what one process may hold connections
// for, in worker processes this one supervises.
class RunFleet : public LiveProcess {
 public:
  using LiveProcess::LiveProcess;

  std::optional<int> preflight() override {
    const auto workers =
        worker_count({cmd_.scenario.fleet.clients, descriptor_room(), cmd_.processes,
                      cmd_.shard_given, cmd_.dashboard.has_value()});
    if (!workers) return refuse(cmd_, kExitUsage, workers.error());
    workers_ = *workers;
    if (auto code = LiveProcess::preflight()) return code;
    // The workers carry the fleet from here; the supervisor's exit code is the command's.
    if (workers_ > 1) return supervise_fleet(cmd_, workers_, admin_);
    return std::nullopt;
  }
};

}  // namespace

int run_run_command(const RunCommand& cmd) {
  return run_fleet_command(cmd, [&cmd] { return std::make_unique<RunFleet>(cmd); });
}

}  // namespace stampede
