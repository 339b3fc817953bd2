#include "processes/data_plane_workers.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <span>
#include <vector>

#include "processes/remote_admitter.hpp"

namespace stampede {
namespace {

// channels: the worker's own, then one line per loop.
int run_worker(const WorkersConfig& c, std::size_t index, const ListenSocket& socket,
               std::span<const int> channels) {
  RemoteAdmitter admitter(channels.front(), channels.subspan(1), index * c.data.threads, c.provider,
                          c.rules, c.time_scale);
  DataPlaneConfig data = c.data;
  data.listen_socket = socket;
  DataPlane plane(data, admitter);
  if (auto e = plane.start()) {
    std::cerr << "fakeprovider: worker " << index << ": " << *e << "\n";
    return 1;
  }
  // The owner blocked these before forking: they wait here, as its own do.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  plane.stop(c.stop_wait_ns);
  for (const int fd : channels) close(fd);
  return 0;
}

// In the child, before its body: only its own descriptors of the group stay open.
void keep_own(std::size_t index, const std::vector<int>& channels,
              const std::vector<int>& listen_fds) {
  for (const int fd : channels) close(fd);
  for (std::size_t j = 0; j < listen_fds.size(); ++j) {
    if (j != index) close(listen_fds[j]);
  }
}

ProcessGroup::Launched failed_call(const char* call) {
  return {-1, std::string(call) + ": " + std::strerror(errno)};
}

// Worker index forked, with its channels (blocking stream sockets: its own, then one a loop);
// this process keeps the other ends, in channels.
ProcessGroup::Launched fork_worker(const WorkersConfig& c, std::size_t index,
                                   const std::vector<ListenSocket>& sockets,
                                   const std::vector<int>& listen_fds, std::vector<int>& channels) {
  std::vector<int> ends;  // the child's
  for (std::size_t k = 0; k < 1 + c.data.threads; ++k) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      const auto failed = failed_call("socketpair");
      for (const int fd : ends) close(fd);
      return failed;
    }
    channels.push_back(pair[0]);
    ends.push_back(pair[1]);
  }
  std::cout.flush();
  const pid_t pid = ProcessGroup::fork_member(0, SIGTERM);
  if (pid == 0) {
    keep_own(index, channels, listen_fds);
    const int code = run_worker(c, index, sockets[index], ends);
    std::cout.flush();
    std::cerr.flush();
    _exit(code);
  }
  const auto launched = pid < 0 ? failed_call("fork") : ProcessGroup::Launched{pid, {}};
  for (const int fd : ends) close(fd);
  return launched;
}

}  // namespace

std::optional<std::string> DataPlaneWorkers::stop() {
  group.stop(SIGTERM, std::nullopt);
  group.wait_all();
  std::vector<ProcessEnd> ends;
  for (const auto& m : group.members()) ends.push_back(m.end);
  return failures_named(ends, 0);
}

Parsed<DataPlaneWorkers> start_data_plane_workers(const WorkersConfig& config) {
  auto sockets = open_listen_sockets(config.data.listen, config.data.backlog, config.processes);
  if (!sockets) return Parsed<DataPlaneWorkers>::fail("--listen: " + sockets.error());
  std::vector<int> fds;
  for (const ListenSocket& s : *sockets) fds.push_back(s.fd);
  // A worker serves until told to stop: any end before that fails the provider (main.cpp
  // hears it as SIGCHLD); only an exit 0 at the stop is a clean one.
  DataPlaneWorkers workers{ProcessGroup({{0, false, true}, false}), {}, sockets->front().port};
  auto error = workers.group.start(config.processes, [&](std::size_t i, pid_t) {
    return fork_worker(config, i, *sockets, fds, workers.channels);
  });
  // The workers hold them now; here they would only keep a closed worker's port open.
  for (const int fd : fds) close(fd);
  if (error) {
    for (const int fd : workers.channels) close(fd);
    return Parsed<DataPlaneWorkers>::fail(*error);
  }
  return Parsed<DataPlaneWorkers>::ok(std::move(workers));
}

}  // namespace stampede
