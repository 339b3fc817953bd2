#include "support/redis.hpp"

#include <signal.h>

#include "support/ports.hpp"
#include "support/tools.hpp"

namespace support {
namespace {

const std::string kRedisServer = "/usr/bin/redis-server";
constexpr int kRedisReadyMs = 10'000;

}  // namespace

bool RedisServer::installed() {
  return have_executable(kRedisServer);
}

RedisServer::RedisServer() {
  if (!installed()) return;
  // The port is free when chosen and taken a moment later: another process can take it in
  // between, so a start that fails is tried again on another one.
  for (int attempt = 0; attempt < 3 && !ready_; ++attempt) {
    port_ = unused_port();
    process_ = std::make_unique<Process>(
        kRedisServer,
        std::vector<std::string>{"--port", std::to_string(port_), "--bind", "127.0.0.1", "--save",
                                 "", "--appendonly", "no", "--dir", dir_.path()},
        dir_, "redis-" + std::to_string(attempt));
    ready_ = wait_until(
        [&] { return process_->out().find("Ready to accept connections") != std::string::npos; },
        kRedisReadyMs);
  }
}

void RedisServer::stop() {
  if (process_) {
    process_->signal(SIGKILL);
    process_->wait(kRedisReadyMs);
  }
  ready_ = false;
}

bool redis_or_skip(const RedisServer& redis) {
  if (!require_tool(RedisServer::installed(), "redis-server", "apt-get install redis-server"))
    return false;
  if (redis.started()) return true;
  FAIL_CHECK("redis-server did not start");
  return false;
}

}  // namespace support
