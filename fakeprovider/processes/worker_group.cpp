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

Parsed<WorkerGroup> WorkerGroup::start(std::size_t count,
                                       const std::function<int(std::size_t, int)>& body,
                                       const std::vector<int>& per_child_fds) {
  WorkerGroup group;
  const pid_t owner = getpid();
  for (std::size_t i = 0; i < count; ++i) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      group.signal_all(SIGTERM);
      group.wait();
      return Parsed<WorkerGroup>::fail(std::string("socketpair: ") + std::strerror(errno));
    }
    std::cout.flush();
    const pid_t pid = fork();
    if (pid < 0) {
      close(pair[0]);
      close(pair[1]);
      group.signal_all(SIGTERM);
      group.wait();
      return Parsed<WorkerGroup>::fail(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != owner) _exit(1);  // the owner died before the line above
      close(pair[0]);
      keep_own(i, group.channels_, per_child_fds);
      const int code = body(i, pair[1]);
      std::cout.flush();
      std::cerr.flush();
      _exit(code);
    }
    close(pair[1]);
    group.pids_.push_back(pid);
    group.channels_.push_back(pair[0]);
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
