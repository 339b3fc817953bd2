#include "live_harness.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "live/provider_admin.hpp"

extern char** environ;

namespace live_test {
namespace {

const std::string kBinDir = STAMPEDE_BIN_DIR;
// A safety net, generous for sanitizer builds on a loaded machine: every run bounds itself
// far sooner.
constexpr int kLoadgenTimeoutMs = 180'000;

}  // namespace

TempDir::TempDir() {
  char pattern[] = "/tmp/stampede-live-XXXXXX";
  path_ = mkdtemp(pattern);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<nlohmann::json> read_json_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

bool wait_until(const std::function<bool()>& condition, int timeout_ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
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
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
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

FakeProvider::FakeProvider(std::vector<std::string> args, int port)
    : process_(
          kBinDir + "/fakeprovider",
          [&] {
            args.insert(args.begin(), {"--listen", "127.0.0.1:" + std::to_string(port),
                                       "--admin-listen", "127.0.0.1:0"});
            return args;
          }(),
          dir_, "fakeprovider") {
  wait_until(
      [&] {
        const std::string out = process_.out();
        const auto listen = out.find("listening on ");
        const auto admin = out.find("admin on ");
        if (listen == std::string::npos || admin == std::string::npos) return false;
        const auto line_end = [&](std::size_t from) { return out.find('\n', from); };
        if (line_end(listen) == std::string::npos || line_end(admin) == std::string::npos)
          return false;
        url_ = out.substr(listen + 13, line_end(listen) - listen - 13) + "/v1/messages";
        admin_ = out.substr(admin + 9, line_end(admin) - admin - 9);
        return true;
      },
      10'000);
}

nlohmann::json FakeProvider::stats() const {
  auto url = stampede::parse_target_url(admin_);
  if (!url) return nullptr;
  const auto body = stampede::ProviderAdmin(*url, "").stats_json();
  if (!body) return nullptr;
  return *body;
}

bool slow_tests() {
  const char* v = std::getenv("STAMPEDE_SLOW_TESTS");
  return v && std::string(v) == "1";
}

Run run_loadgen(const std::vector<std::string>& args, const EnvChanges& env) {
  TempDir dir;
  std::vector<std::string> all{"run",
                               "--quiet",
                               "--out",
                               dir.file("results.json"),
                               "--dead-letter",
                               dir.file("dead.jsonl"),
                               "--attempts-out",
                               dir.file("attempts.jsonl")};
  all.insert(all.end(), args.begin(), args.end());
  Process p(kBinDir + "/loadgen", all, dir, "loadgen", env);
  Run r;
  r.code = p.wait(kLoadgenTimeoutMs);
  r.out = p.out();
  r.err = p.err();
  const std::string results = read_file(dir.file("results.json"));
  if (!results.empty()) r.results = nlohmann::json::parse(results);
  if (std::filesystem::exists(dir.file("dead.jsonl")))
    r.dead_letters = read_json_lines(dir.file("dead.jsonl"));
  if (std::filesystem::exists(dir.file("attempts.jsonl")))
    r.attempts = read_json_lines(dir.file("attempts.jsonl"));
  return r;
}

int unused_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

}  // namespace live_test
