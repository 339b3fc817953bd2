#pragma once

// What the report tests share: temporary directories, files, and running the real binaries
// and the small Python checkers beside these tests.

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace report_test {

inline std::string source_path(const std::string& relative) {
  return std::string(STAMPEDE_SOURCE_DIR) + "/" + relative;
}

inline std::string bin_path(const std::string& name) {
  return std::string(STAMPEDE_BIN_DIR) + "/" + name;
}

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

struct Process {
  int exit_code = -1;
  std::string output;  // stdout, and stderr unless asked not to
};

// Runs a shell command to its end; every command the tests run is bounded by `timeout`.
inline Process run(const std::string& command, bool with_stderr = true) {
  Process p;
  FILE* pipe = popen((command + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (!pipe) return p;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) p.output.append(buf, n);
  const int status = pclose(pipe);
  p.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return p;
}

// The program's path when it is on PATH, else empty.
inline std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const auto candidate = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
  }
  return "";
}

// Whether a case may skip for a missing tool: only outside CI, where it is a developer's machine
// without the package; in CI (.ci/run sets CI=1) it is a broken pipeline, and the case fails.
inline bool skip_when(bool missing) {
  return missing && std::getenv("CI") == nullptr;
}

inline bool have_python_yaml() {
  return !find_program("python3").empty() && run("python3 -c 'import yaml'").exit_code == 0;
}

// A fresh directory, removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "stampede-report-XXXXXX").string();
    path_ = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// check_xhtml.py's findings about a report file, or a JSON null with the parser's message in
// `error` when the file is not well-formed XML.
inline nlohmann::json check_xhtml(const std::string& html_path, std::string* error = nullptr) {
  const auto p = run("timeout 60 python3 " + quote(source_path("tests/report/check_xhtml.py")) +
                     " " + quote(html_path));
  if (p.exit_code != 0) {
    if (error) *error = p.output;
    return nullptr;
  }
  return nlohmann::json::parse(p.output, nullptr, false);
}

}  // namespace report_test
