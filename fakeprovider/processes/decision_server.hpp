#pragma once

#include <thread>
#include <vector>

#include "server/admitter.hpp"

namespace stampede {

// The owning process's side of the workers' channels and their loops' lines (fakeprovider
// --processes): one thread that answers the questions on each with the provider's decisions,
// in the order they come. It ends when every worker has closed them all, or when destroyed.
class DecisionServer {
 public:
  DecisionServer(Admitter& provider, std::vector<int> channel_fds);
  ~DecisionServer();
  DecisionServer(const DecisionServer&) = delete;
  DecisionServer& operator=(const DecisionServer&) = delete;

  // Waits until every worker has gone, then stops.
  void join();

 private:
  void run();
  // False when the worker is gone or said something no worker says.
  bool answer(int fd);

  Admitter& provider_;
  std::vector<int> fds_;
  int stop_fd_ = -1;
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace stampede
