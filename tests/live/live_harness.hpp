#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

// Runs the real binaries on loopback ports for the live-engine tests: fakeprovider as the
// target (nginx: tests/staging/nginx_harness.hpp), loadgen run as the fleet.
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

// Changes to a child's environment: {NAME, value} sets it, {NAME, nullopt} unsets it.
using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

// A child process with stdout and stderr going to files.
class Process {
 public:
  Process(const std::string& binary, const std::vector<std::string>& args, const TempDir& dir,
          const std::string& name, const EnvChanges& env = {});
  ~Process();  // SIGKILL if still running
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Whether it has not exited yet (an exited child is reaped: wait() then returns -1).
  bool running();
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

struct Run {
  int code = -1;
  std::string out, err;
  nlohmann::json results;  // --out, parsed; null if none
  std::vector<nlohmann::json> dead_letters;
  std::vector<nlohmann::json> attempts;
};

// loadgen run with args plus --out, --dead-letter, --attempts-out and --quiet, to its exit.
Run run_loadgen(const std::vector<std::string>& args, const EnvChanges& env = {});

// A port nothing listens on (bound, then released).
int unused_port();

bool wait_until(const std::function<bool()>& condition, int timeout_ms);

// Whether the tests named "slow: ..." run: STAMPEDE_SLOW_TESTS=1 (make test-slow).
bool slow_tests();

}  // namespace live_test
