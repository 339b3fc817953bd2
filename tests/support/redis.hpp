#pragma once

#include <memory>
#include <string>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace support {

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

 private:
  TempDir dir_;
  std::unique_ptr<Process> process_;
  int port_ = 0;
  bool ready_ = false;
};

// True when redis is up. Otherwise false, after skipping (redis-server not installed, outside
// CI: support/tools.hpp) or failing the test.
bool redis_or_skip(const RedisServer& redis);

}  // namespace support
