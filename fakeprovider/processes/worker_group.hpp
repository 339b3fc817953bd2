#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parsed.hpp"

namespace stampede {

// Forked processes, each with its ends of its channels to this one (blocking stream sockets),
// which keeps the other ends. Forked before this process starts any thread: a child of a
// threaded process may find a lock held forever. A child dies with this process
// (PR_SET_PDEATHSIG: SIGTERM), so none outlives an owner that crashed.
class WorkerGroup {
 public:
  // Runs body(index, channel_fds) in each of count children, which exit with what it returns;
  // each child has channels_each channels. per_child_fds: one descriptor per child (its listen
  // socket), which the others close.
  using Body = std::function<int(std::size_t, std::span<const int>)>;
  static Parsed<WorkerGroup> start(std::size_t count, std::size_t channels_each, const Body& body,
                                   const std::vector<int>& per_child_fds);
  WorkerGroup(WorkerGroup&&) = default;
  WorkerGroup& operator=(WorkerGroup&&) = default;

  // This process's ends of the channels, child after child; the caller takes them over.
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
