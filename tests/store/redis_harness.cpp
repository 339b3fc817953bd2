#include "redis_harness.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace live_test {
namespace {
const std::string kRedisServer = "/usr/bin/redis-server";
}

bool RedisServer::installed() {
  return access(kRedisServer.c_str(), X_OK) == 0;
}

bool RedisServer::may_skip() {
  return std::getenv("CI") == nullptr;
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
                                 "", "--appendonly", "no", "--dir", dir_.file("")},
        dir_, "redis-" + std::to_string(attempt));
    ready_ = wait_until(
        [&] { return process_->out().find("Ready to accept connections") != std::string::npos; },
        10'000);
  }
}

void RedisServer::stop() {
  if (process_) {
    process_->signal(SIGKILL);
    process_->wait(10'000);
  }
  ready_ = false;
}

}  // namespace live_test
