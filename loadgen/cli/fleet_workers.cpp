#include "cli/fleet_workers.hpp"

#include <algorithm>

#include "duration.hpp"

namespace stampede {

Parsed<std::int64_t> worker_count(const FleetShape& s) {
  using Result = Parsed<std::int64_t>;
  const std::int64_t room = std::max<std::int64_t>(1, s.room);
  const std::int64_t needed = (s.clients + room - 1) / room;
  if (s.shard_given) {
    if (s.requested > 1)
      return Result::fail("--processes " + std::to_string(s.requested) +
                          ": not with --shard (a shard runs in one process); give more shards, "
                          "or leave out --shard and loadgen run starts the worker processes");
    return Result::ok(1);
  }
  if (s.requested > s.clients)
    return Result::fail("--processes " + std::to_string(s.requested) +
                        ": more processes than the " + std::to_string(s.clients) +
                        " clients; give at most " + std::to_string(s.clients));
  if (s.requested > 1 && s.requested < needed)
    return Result::fail(
        "--processes " + std::to_string(s.requested) + ": " + std::to_string(s.clients) +
        " clients need at least " + std::to_string(needed) + " processes of at most " +
        std::to_string(room) +
        " (the open-file hard limit, ulimit -Hn, less spare ones); give --processes " +
        std::to_string(needed) + " or more, or leave it out");
  const std::int64_t workers = s.requested > 0 ? s.requested : needed;
  if (workers > 1 && s.dashboard)
    return Result::fail("--dashboard: the fleet runs in " + std::to_string(workers) +
                        " worker processes, and the dashboard serves one process's clients; "
                        "watch the provider's (fakeprovider's admin /dashboard) instead, or run "
                        "at most " +
                        std::to_string(room) + " clients in one process (--processes 1)");
  return Result::ok(workers);
}

std::int64_t worker_start_lead_ns(std::int64_t clients_per_worker) {
  constexpr std::int64_t kBaseNs = 3 * kNsPerSec;
  constexpr std::int64_t kPerClientNs = 200'000;
  return kBaseNs + clients_per_worker * kPerClientNs;
}

WorkerFiles worker_files(const std::string& dir, std::int64_t index) {
  const std::string stem = dir + "/worker-" + std::to_string(index);
  return {stem + ".json", stem + ".dead-letters.jsonl", stem + ".attempts.jsonl", stem + ".err"};
}

std::vector<std::string> worker_arguments(const std::vector<std::string>& run_args,
                                          std::int64_t index, std::int64_t count,
                                          const std::string& start_at, const std::string& dir) {
  std::vector<std::string> args{
      "run", "--shard", std::to_string(index) + "/" + std::to_string(count), kFleetWorkerFlag, dir};
  if (!start_at.empty()) args.insert(args.end(), {"--start-at", start_at});
  args.insert(args.end(), run_args.begin(), run_args.end());
  return args;
}

}  // namespace stampede
