#include "processes/data_plane_workers.hpp"

#include <signal.h>
#include <unistd.h>

#include <iostream>

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

}  // namespace

Parsed<DataPlaneWorkers> start_data_plane_workers(const WorkersConfig& config) {
  auto sockets = open_listen_sockets(config.data.listen, config.data.backlog, config.processes);
  if (!sockets) return Parsed<DataPlaneWorkers>::fail("--listen: " + sockets.error());
  std::vector<int> fds;
  for (const ListenSocket& s : *sockets) fds.push_back(s.fd);
  auto group = WorkerGroup::start(
      config.processes, 1 + config.data.threads,
      [&](std::size_t i, std::span<const int> channels) {
        return run_worker(config, i, (*sockets)[i], channels);
      },
      fds);
  // The workers hold them now; here they would only keep a closed worker's port open.
  for (const int fd : fds) close(fd);
  if (!group) return Parsed<DataPlaneWorkers>::fail(group.error());
  return Parsed<DataPlaneWorkers>::ok({std::move(*group), sockets->front().port});
}

}  // namespace stampede
