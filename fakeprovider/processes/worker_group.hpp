#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parsed.hpp"

namespace stampede {

// Forked processes, each with its end of a channel to this one (a blocking stream socket),
// which keeps the other ends. Forked before this process starts any thread: a child of a
// threaded process may find a lock held forever. A child dies with this process
// (PR_SET_PDEATHSIG: SIGTERM), so none outlives an owner that crashed.
class WorkerGroup {
 public:
  // Runs body(index, channel_fd) in each of count children, which exit with what it returns.
  // per_child_fds: one descriptor per child (its listen socket), which the others close.
  static Parsed<WorkerGroup> start(std::size_t count,
                                   const std::function<int(std::size_t, int)>& body,
                                   const std::vector<int>& per_child_fds);
  WorkerGroup(WorkerGroup&&) = default;
  WorkerGroup& operator=(WorkerGroup&&) = default;

  // This process's ends of the channels, by child; the caller takes them over.
  std::vector<int> take_channels() { return std::move(channels_); }
  void signal_all(int signal_number) const;
  // Waits for every child; names each that did not exit 0.
  std::optional<std::string> wait();

 private:
  WorkerGroup() = default;
  std::vector<pid_t> pids_;
  std::vector<int> channels_;
};

}  // namespace stampede
