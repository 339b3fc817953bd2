#include "run_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace stampede::testing {

TempDir::TempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "stampede_test_XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
  const std::string p = file(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

namespace {

// The child's wait status; with a bound, SIGKILL once it has passed.
int wait_for(pid_t pid, int bound_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(bound_s);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, bound_s > 0 ? WNOHANG : 0);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (bound_s > 0 && std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      bound_s = 0;  // and reap it
    } else if (done == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

}  // namespace

ProcessResult run_binary(const std::string& name, const std::vector<std::string>& args,
                         int bound_s) {
  const TempDir io;
  const std::string binary = std::string(STAMPEDE_BIN_DIR) + "/" + name;
  const std::string out_path = io.file("stdout");
  const std::string err_path = io.file("stderr");
  std::vector<std::string> argv_storage{binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + binary);
  const int status = wait_for(pid, bound_s);
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

}  // namespace stampede::testing
