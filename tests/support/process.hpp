#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.hpp"

// Child processes for the tests: the built binaries and the system's tools, with stdout and
// stderr going to files (so neither can fill a pipe and block the child), stdin from
// /dev/null, and every wait bounded.
namespace support {

// A safety net against a hung child, never a pass/fail threshold: generous for sanitizer
// builds on a loaded machine, where every run bounds itself far sooner.
constexpr int kSafetyTimeoutMs = 180'000;

// The directory of this build's binaries and the source tree's root. Only process.cpp uses
// their absolute paths (STAMPEDE_BIN_DIR, STAMPEDE_SOURCE_DIR), so that no other test's
// object depends on where the tree is checked out.
std::string bin_dir();
std::string source_dir();
// A binary of this build, and a file of the source tree.
std::string bin_path(const std::string& name);
std::string source_path(const std::string& relative);

// Changes to a child's environment: {NAME, value} sets it, {NAME, nullopt} unsets it.
using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

// A running child; its output goes to NAME.out and NAME.err in dir.
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
  // The exit code, 128 + the signal that ended it, or -1 when it was still running after
  // timeout_ms (then it is killed).
  int wait(int timeout_ms = kSafetyTimeoutMs);
  std::string out() const;
  std::string err() const;

 private:
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
};

struct Exited {
  int code = -1;  // as Process::wait: -1 when it had to be killed
  std::string out;
  std::string err;
};

// Runs a binary of this build with these arguments to its exit.
Exited run_binary(const std::string& name, const std::vector<std::string>& args,
                  int timeout_ms = kSafetyTimeoutMs, const EnvChanges& env = {});

// What many cases run: this build's loadgen, the reference storm and the golden results of
// its full-jitter run.
inline const std::string kLoadgenBin = bin_path("loadgen");
inline const std::string kStorm = source_path("examples/storm.json");
inline const std::string kStormResults =
    source_path("tests/report/golden/storm_full_jitter.results.json");
// A command's arguments with more after them.
std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more);
// The same for any program, named by its path.
Exited run_program(const std::string& path, const std::vector<std::string>& args,
                   int timeout_ms = kSafetyTimeoutMs, const EnvChanges& env = {});

// Polls condition every few milliseconds; false when timeout_ms passed first.
bool wait_until(const std::function<bool()>& condition, int timeout_ms);

// Whether the tests named "slow: ..." run: STAMPEDE_SLOW_TESTS=1 (make test-slow).
bool slow_tests();

}  // namespace support
