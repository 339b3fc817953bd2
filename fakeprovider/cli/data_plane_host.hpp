#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "processes/data_plane_workers.hpp"
#include "processes/decision_server.hpp"
#include "server/data_plane.hpp"
#include "server/locked_provider.hpp"

namespace stampede {

// The data plane in this process, or in --processes workers that ask this one to decide.
class DataPlaneHost {
 public:
  // Before any thread starts: the workers are forked here.
  std::optional<std::string> fork_workers(const WorkersConfig& config);
  std::optional<std::string> start(const DataPlaneConfig& config, LockedProvider& provider);
  int port() const { return workers_ ? workers_->port : plane_->port(); }
  // The workers finish what they hold, asking for decisions until they exit.
  std::optional<std::string> stop(std::int64_t max_wait_ns);
  // After stop, the data plane in this process: its streamed tokens' lateness (none with
  // workers, whose planes end in their own processes).
  const LogHistogram* token_lateness() const {
    return plane_ ? &plane_->token_lateness() : nullptr;
  }

 private:
  std::optional<DataPlaneWorkers> workers_;
  std::optional<DecisionServer> decisions_;
  std::optional<DataPlane> plane_;
};

}  // namespace stampede
