#pragma once

#include <string>
#include <vector>

namespace stampede::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when the process did not exit normally
  std::string out;
  std::string err;
};

// A private temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

// Runs a binary from STAMPEDE_BIN_DIR with these arguments and waits for it; stdout and
// stderr go to files, so neither can fill a pipe and block it. With a bound, a process still
// running after bound_s seconds (a server that accepted what it should have refused) is
// killed and reported with exit_code -1, so the test fails instead of hanging.
ProcessResult run_binary(const std::string& name, const std::vector<std::string>& args,
                         int bound_s = 0);

std::string read_file(const std::string& path);

// The non-empty lines of a text.
std::vector<std::string> lines(const std::string& text);

}  // namespace stampede::testing
