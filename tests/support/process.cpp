#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "support/files.hpp"

extern char** environ;

namespace support {

std::string bin_dir() {
  return STAMPEDE_BIN_DIR;
}

std::string source_dir() {
  return STAMPEDE_SOURCE_DIR;
}

std::string bin_path(const std::string& name) {
  return bin_dir() + "/" + name;
}

std::string source_path(const std::string& relative) {
  return source_dir() + "/" + relative;
}

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

bool wait_until(const std::function<bool()>& condition, int timeout_ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

bool slow_tests() {
  const char* v = std::getenv("STAMPEDE_SLOW_TESTS");
  return v && std::string(v) == "1";
}

namespace {

// environ with the changes applied: changed names dropped, the set ones appended.
std::vector<std::string> changed_environment(const EnvChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    bool changed = false;
    for (const auto& [n, v] : changes) changed = changed || n == name;
    if (!changed) env.push_back(entry);
  }
  for (const auto& [name, value] : changes) {
    if (value) env.push_back(name + "=" + *value);
  }
  return env;
}

}  // namespace

Process::Process(const std::string& binary, const std::vector<std::string>& args,
                 const TempDir& dir, const std::string& name, const EnvChanges& env)
    : out_path_(dir.file(name + ".out")), err_path_(dir.file(name + ".err")) {
  auto environment = changed_environment(env);
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0)
    pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
}

Process::~Process() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

bool Process::running() {
  if (pid_ <= 0) return false;
  if (waitpid(pid_, nullptr, WNOHANG) != pid_) return true;
  pid_ = -1;
  return false;
}

void Process::signal(int sig) const {
  if (pid_ > 0) kill(pid_, sig);
}

int Process::wait(int timeout_ms) {
  if (pid_ <= 0) return -1;
  int status = 0;
  const bool exited =
      wait_until([&] { return waitpid(pid_, &status, WNOHANG) == pid_; }, timeout_ms);
  if (!exited) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1;
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string Process::out() const {
  return read_file(out_path_);
}

std::string Process::err() const {
  return read_file(err_path_);
}

Exited run_program(const std::string& path, const std::vector<std::string>& args, int timeout_ms,
                   const EnvChanges& env) {
  const TempDir io;
  Process p(path, args, io, "run", env);
  Exited e;
  e.code = p.wait(timeout_ms);
  e.out = p.out();
  e.err = p.err();
  return e;
}

Exited run_binary(const std::string& name, const std::vector<std::string>& args, int timeout_ms,
                  const EnvChanges& env) {
  return run_program(bin_path(name), args, timeout_ms, env);
}

}  // namespace support
