#include "upstream/upstream_pool.hpp"

#include "upstream/curl_pool.hpp"
#include "upstream/socket_pool.hpp"

namespace stampede {

std::unique_ptr<UpstreamPool> UpstreamPool::make(const UpstreamConfig& config,
                                                 UpstreamEvents& events) {
  if (config.url.scheme == "https") return std::make_unique<CurlPool>(config, events);
  return std::make_unique<SocketPool>(config, events);
}

}  // namespace stampede
