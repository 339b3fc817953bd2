#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

// Runs the real binaries on loopback ports for the live-engine tests: fakeprovider (and nginx,
// where installed) as the target, loadgen run as the fleet.
namespace live_test {

// A fresh directory under /tmp, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
std::vector<nlohmann::json> read_json_lines(const std::string& path);

// A child process with stdout and stderr going to files.
class Process {
 public:
  Process(const std::string& binary, const std::vector<std::string>& args, const TempDir& dir,
          const std::string& name);
  ~Process();  // SIGKILL if still running
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  bool started() const { return pid_ > 0; }
  void signal(int sig) const;
  // Waits for the exit, at most timeout_ms; SIGKILL after that and returns -1.
  int wait(int timeout_ms);
  std::string out() const { return read_file(out_path_); }
  std::string err() const { return read_file(err_path_); }

 private:
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
};

// fakeprovider on ephemeral ports (or the data plane on port, to restart it where it was),
// read from its first two lines.
class FakeProvider {
 public:
  explicit FakeProvider(std::vector<std::string> args, int port = 0);
  bool started() const { return !url_.empty() && !admin_.empty(); }
  const std::string& url() const { return url_; }
  const std::string& admin() const { return admin_; }
  nlohmann::json stats() const;  // GET /admin/stats; null when it fails
  Process& process() { return process_; }

 private:
  TempDir dir_;
  Process process_;
  std::string url_, admin_;
};

// nginx serving a static file on a free loopback port, logging "$status" per request; with a
// rate, behind limit_req (one zone for every client, no burst, 429, no Retry-After).
class Nginx {
 public:
  explicit Nginx(const std::string& limit_rate = "");
  ~Nginx();
  bool started() const { return port_ > 0; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  // Stops nginx (so the log is complete) and returns its access log lines.
  std::vector<std::string> stop_and_read_log();
  static bool installed();

 private:
  TempDir dir_;
  std::optional<Process> process_;
  int port_ = 0;
};

struct Run {
  int code = -1;
  std::string out, err;
  nlohmann::json results;  // --out, parsed; null if none
  std::vector<nlohmann::json> dead_letters;
  std::vector<nlohmann::json> attempts;
};

// loadgen run with args plus --out, --dead-letter, --attempts-out and --quiet, to its exit.
Run run_loadgen(const std::vector<std::string>& args);

// A port nothing listens on (bound, then released).
int unused_port();

bool wait_until(const std::function<bool()>& condition, int timeout_ms);

// Whether the tests named "slow: ..." run: STAMPEDE_SLOW_TESTS=1 (make test-slow).
bool slow_tests();

}  // namespace live_test
