#include "cli/data_plane_host.hpp"

#include <utility>

namespace stampede {

std::optional<std::string> DataPlaneHost::fork_workers(const WorkersConfig& config) {
  auto started = start_data_plane_workers(config);
  if (!started) return started.error();
  workers_.emplace(std::move(*started));
  return std::nullopt;
}

std::optional<std::string> DataPlaneHost::start(const DataPlaneConfig& config,
                                                LockedProvider& provider) {
  if (workers_) {
    decisions_.emplace(provider, std::move(workers_->channels));
    return std::nullopt;
  }
  plane_.emplace(config, provider);
  return plane_->start();
}

std::optional<std::string> DataPlaneHost::stop(std::int64_t max_wait_ns) {
  if (plane_) plane_->stop(max_wait_ns);
  if (!workers_) return std::nullopt;
  auto failed = workers_->stop();
  decisions_->join();
  return failed;
}

}  // namespace stampede
