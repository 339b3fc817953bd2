#pragma once

#include <memory>
#include <string>

#include "live_harness.hpp"

namespace live_test {

// redis-server (the Debian package) on a free loopback port, without persistence, stopped
// with the object.
class RedisServer {
 public:
  RedisServer();
  bool started() const { return ready_; }
  int port() const { return port_; }
  // A --store URL with its own key prefix.
  std::string url(const std::string& prefix) const {
    return "redis://127.0.0.1:" + std::to_string(port_) + "/" + prefix;
  }
  void stop();  // SIGKILL: a store lost mid-run

  static bool installed();
  // Whether a test without redis-server may skip: everywhere but CI (CI installs it).
  static bool may_skip();

 private:
  TempDir dir_;
  std::unique_ptr<Process> process_;
  int port_ = 0;
  bool ready_ = false;
};

}  // namespace live_test

#include <doctest/doctest.h>

namespace live_test {

// True when redis is up. Otherwise false, after skipping (where redis-server is not installed
// and this is not CI) or failing the test.
inline bool redis_or_skip(const RedisServer& redis) {
  if (redis.started()) return true;
  if (!RedisServer::installed() && RedisServer::may_skip()) {
    MESSAGE("skipped: redis-server is not installed (apt-get install redis-server; CI has it)");
    return false;
  }
  FAIL_CHECK("redis-server did not start");
  return false;
}

}  // namespace live_test
