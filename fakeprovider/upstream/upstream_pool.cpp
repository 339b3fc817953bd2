#include "upstream/upstream_pool.hpp"

#include "upstream/curl_pool.hpp"
#include "upstream/socket_pool.hpp"

namespace stampede {

std::unique_ptr<UpstreamPool> UpstreamPool::make(const UpstreamConfig& config,
                                                 UpstreamEvents& events) {
  if (config.url.scheme == "https") return std::make_unique<CurlPool>(config, events);
  return std::make_unique<SocketPool>(config, events);
}

std::string pool_busy_detail(const UpstreamConfig& config) {
  return "all " + std::to_string(config.connections) +
         " connections to the upstream (--upstream-connections, per data-plane thread) stayed "
         "busy for " +
         std::to_string(config.timeout_ns / 1'000'000'000) + " s (--upstream-timeout)";
}

}  // namespace stampede
