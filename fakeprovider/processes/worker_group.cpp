#include "processes/worker_group.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace stampede {
namespace {

// In the child, before its body: only its own descriptors of the group stay open.
void keep_own(std::size_t index, const std::vector<int>& channels,
              const std::vector<int>& per_child_fds) {
  for (const int fd : channels) close(fd);
  for (std::size_t j = 0; j < per_child_fds.size(); ++j) {
    if (j != index) close(per_child_fds[j]);
  }
}

}  // namespace

Parsed<WorkerGroup> WorkerGroup::start(std::size_t count, std::size_t channels_each,
                                       const Body& body, const std::vector<int>& per_child_fds) {
  WorkerGroup group;
  const pid_t owner = getpid();
  const auto failed = [&group](const char* call) {
    const int error = errno;
    group.signal_all(SIGTERM);
    group.wait();
    for (const int fd : group.channels_) close(fd);
    return Parsed<WorkerGroup>::fail(std::string(call) + ": " + std::strerror(error));
  };
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<int> ends;  // the child's
    for (std::size_t k = 0; k < channels_each; ++k) {
      int pair[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        for (const int fd : ends) close(fd);
        return failed("socketpair");
      }
      group.channels_.push_back(pair[0]);
      ends.push_back(pair[1]);
    }
    std::cout.flush();
    const pid_t pid = fork();
    if (pid < 0) {
      for (const int fd : ends) close(fd);
      return failed("fork");
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != owner) _exit(1);  // the owner died before the line above
      keep_own(i, group.channels_, per_child_fds);
      const int code = body(i, ends);
      std::cout.flush();
      std::cerr.flush();
      _exit(code);
    }
    for (const int fd : ends) close(fd);
    group.pids_.push_back(pid);
  }
  return Parsed<WorkerGroup>::ok(std::move(group));
}

void WorkerGroup::signal_all(int signal_number) const {
  for (const pid_t pid : pids_) kill(pid, signal_number);
}

std::optional<std::string> WorkerGroup::wait() {
  std::string failed;
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    int status = 0;
    while (waitpid(pids_[i], &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    failed += (failed.empty() ? "" : "; ") + std::string("worker ") + std::to_string(i) +
              (WIFSIGNALED(status) ? std::string(" was killed by ") + strsignal(WTERMSIG(status))
                                   : " exited " + std::to_string(WEXITSTATUS(status)));
  }
  pids_.clear();
  if (failed.empty()) return std::nullopt;
  return failed;
}

}  // namespace stampede
