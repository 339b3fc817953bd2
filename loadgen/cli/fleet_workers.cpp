#include "cli/fleet_workers.hpp"

#include <algorithm>
#include <charconv>

#include "exit_codes.hpp"
#include "process/group_rules.hpp"

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

std::string format_start_line(std::int64_t start_unix_ns) {
  return std::to_string(start_unix_ns) + "\n";
}

std::optional<std::int64_t> parse_start_line(std::string_view line) {
  std::int64_t ns = 0;
  const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), ns);
  if (ec != std::errc() || end != line.data() + line.size() || ns <= 0) return std::nullopt;
  return ns;
}

std::string format_fleet_waiting(std::int64_t ready, std::int64_t count) {
  if (ready < count)
    return "opening connections: " + std::to_string(ready) + " of " + std::to_string(count) +
           " workers ready";
  return "all " + std::to_string(count) + " workers ready, waiting for the start";
}

int worker_exit_code(const std::optional<ProcessEnd>& end, bool wrote_results) {
  if (end && !end_failed(*end, kExitFailed) && wrote_results) return kExitOk;
  const bool usage = end && end->exited && end->exit_code == kExitUsage;
  return usage ? kExitUsage : kExitUnreachable;
}

WorkerFiles worker_files(const std::string& dir, std::int64_t index) {
  const std::string stem = dir + "/worker-" + std::to_string(index);
  return {stem + ".json", stem + ".dead-letters.jsonl", stem + ".attempts.jsonl", stem + ".err"};
}

std::vector<std::string> worker_arguments(const std::vector<std::string>& run_args,
                                          std::int64_t index, std::int64_t count,
                                          const std::string& dir) {
  std::vector<std::string> args{kFleetWorkerCommand, "--shard",
                                std::to_string(index) + "/" + std::to_string(count),
                                kFleetWorkerDirFlag, dir};
  args.insert(args.end(), run_args.begin(), run_args.end());
  return args;
}

}  // namespace stampede
