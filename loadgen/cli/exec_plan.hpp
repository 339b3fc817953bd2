#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "process/process_end.hpp"

namespace stampede {

// `loadgen exec`, the pure parts: which clients each process runs, what it is told, what its
// end means, whether the machine can hold the fleet. No I/O here; exec_fleet does that.

// N clients in ceil(N / K) processes of K clients each; the last takes what is left.
struct ExecProcess {
  std::int64_t index = 0;         // 0 .. processes - 1
  std::int64_t first_client = 0;  // STAMPEDE_CLIENT_ID and {client}
  std::int64_t clients = 1;       // STAMPEDE_PER_PROCESS
};

std::int64_t process_count(std::int64_t clients, std::int64_t per_process);
ExecProcess process_at(std::int64_t index, std::int64_t clients, std::int64_t per_process);

// Each argument with every "{url}" and "{client}" replaced; nothing else is touched (a JSON
// body's braces stay as they are), and what is put in is never expanded again.
std::string expand_argument(std::string_view arg, std::string_view url, std::int64_t client);
std::vector<std::string> expand_arguments(const std::vector<std::string>& args,
                                          std::string_view url, std::int64_t client);

// One trace arrival run as one process (exec --workload trace, docs/TRACE.md): the item, the
// fleet's free client that took it, and what the trace's line carried.
struct ExecItem {
  std::int64_t item = 0;
  std::int64_t client = 0;
  std::optional<std::string> tenant;
  std::optional<std::int64_t> tokens;
  std::string method, path;  // empty: the line had none
};

// ARGS for one item: "{url}", "{client}", "{item}" and "{tenant}" (empty without one)
// replaced, as expand_argument does.
std::vector<std::string> item_arguments(const std::vector<std::string>& args, std::string_view url,
                                        const ExecItem& item);

// The variables a process gets on top of loadgen's own environment.
std::vector<std::pair<std::string, std::string>> process_variables(const ExecProcess& p,
                                                                   std::int64_t clients,
                                                                   std::string_view url);

// A trace item's process: a one-client process's variables, then STAMPEDE_ITEM, and
// STAMPEDE_TENANT, _TOKENS, _METHOD and _PATH when its line had them.
std::vector<std::pair<std::string, std::string>> item_variables(const ExecItem& item,
                                                                std::int64_t clients,
                                                                std::string_view url);

// loadgen's environment ("NAME=value" entries) with the process's variables set: a name
// loadgen's environment already has takes the process's value.
std::vector<std::string> process_environment(
    const std::vector<std::string>& base,
    const std::vector<std::pair<std::string, std::string>>& variables);

enum class ExecOutcome { kDelivered, kDeadLettered, kUnfinished };

// 0 delivered, any other exit or a death by a signal nobody here sent dead-lettered; running
// when the fleet was stopped unfinished, however it ended after that.
ExecOutcome outcome_of(const ProcessEnd& end);
std::string_view to_string(ExecOutcome o);

// What bounds the fleet's size: RLIMIT_NPROC counts this user's tasks (threads), the kernel's
// pid_max and threads-max every task on the machine.
struct ProcessLimits {
  std::optional<std::int64_t> user_limit;  // RLIMIT_NPROC's soft limit; none: unlimited
  std::int64_t user_tasks = 0;             // this user's tasks now
  std::int64_t system_limit = 0;           // min(pid_max, threads-max)
  std::int64_t system_tasks = 0;           // tasks on the machine now
};

// Room for the fleet's processes and the one that holds their process group, or the one line
// that says which limit it is above and what to do.
std::optional<std::string> process_limit_error(std::int64_t clients, std::int64_t processes,
                                               const ProcessLimits& limits);

// A process's output kept to its first cap_bytes; the rest is counted, and a note says so.
class BoundedLog {
 public:
  explicit BoundedLog(std::int64_t cap_bytes) : cap_bytes_(cap_bytes) {}
  // Of n bytes that came, how many to keep.
  std::int64_t keep(std::int64_t n);
  std::int64_t kept() const { return kept_; }
  std::int64_t dropped() const { return dropped_; }
  // The line ending a truncated log; empty when nothing was dropped.
  std::string truncation_note() const;

 private:
  std::int64_t cap_bytes_;
  std::int64_t kept_ = 0;
  std::int64_t dropped_ = 0;
};

}  // namespace stampede
