#include "provider_harness.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "scenario_flags.hpp"

extern char** environ;

namespace provider_test {
namespace {

// Safety nets against a hung server, never a pass/fail threshold: a healthy run takes
// milliseconds where these allow seconds.
constexpr int kStartupTimeoutMs = 20'000;
constexpr int kExitTimeoutMs = 30'000;
constexpr int kSocketTimeoutS = 30;

const std::string kBinary = std::string(STAMPEDE_BIN_DIR) + "/fakeprovider";

pid_t spawn(const std::vector<std::string>& args, int stdout_fd, const std::string& err_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_s{kBinary};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, kBinary.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Waits for pid's exit code; kills it after the safety timeout and returns -1.
int wait_exit(pid_t pid) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kExitTimeoutMs);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int port_of(const std::string& line, const std::string& prefix) {
  if (line.rfind(prefix, 0) != 0) return 0;
  const auto colon = line.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(line.c_str() + colon + 1);
}

}  // namespace

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "stampede-provider-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Exited run_to_exit(const std::vector<std::string>& args) {
  TempDir dir;
  Exited e;
  const int out_fd = open(dir.file("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const pid_t pid = spawn(args, out_fd, dir.file("err"));
  close(out_fd);
  if (pid < 0) return e;
  e.code = wait_exit(pid);
  e.out = read_file(dir.file("out"));
  e.err = read_file(dir.file("err"));
  return e;
}

Provider::Provider(std::vector<std::string> args) {
  args.insert(args.begin(), {"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
                             "--arrivals-out", arrivals_path(), "--stats-out", stats_path()});
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  pid_ = spawn(args, fds[1], dir_.file("stderr.txt"));
  close(fds[1]);
  std::string text;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartupTimeoutMs);
  while (pid_ > 0 && std::count(text.begin(), text.end(), '\n') < 2 &&
         std::chrono::steady_clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[512];
    const auto n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // exited before printing both lines
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);  // later output (none expected) would get EPIPE, ignored by the server
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) lines_.push_back(line);
  if (lines_.size() >= 2) {
    data_port_ = port_of(lines_[0], "listening on http://127.0.0.1:");
    admin_port_ = port_of(lines_[1], "admin on http://127.0.0.1:");
  }
}

Provider::~Provider() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void Provider::signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

bool Provider::wait_state(char state) const {
  const std::string path = "/proc/" + std::to_string(pid_) + "/stat";
  for (int i = 0; i < kStartupTimeoutMs; ++i) {
    const auto stat = read_file(path);
    const auto paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == state) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

int Provider::stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  const int code = wait_exit(pid_);
  pid_ = -1;
  return code;
}

std::string Provider::err() const {
  return read_file(dir_.file("stderr.txt"));
}

std::int64_t Response::header_int(const std::string& name) const {
  const auto v = header(name);
  return v.empty() ? -1 : std::stoll(v);
}

Connection::Connection(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{kSocketTimeoutS, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const int on = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd_);
    fd_ = -1;
  }
}

Connection::~Connection() {
  if (fd_ >= 0) close(fd_);
}

void Connection::send_raw(const std::string& bytes) {
  std::size_t sent = 0;
  while (fd_ >= 0 && sent < bytes.size()) {
    const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

void Connection::shutdown_write() {
  if (fd_ >= 0) shutdown(fd_, SHUT_WR);
}

bool Connection::fill() {
  char buf[16384];
  const auto n = recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) return false;
  buffer_.append(buf, static_cast<std::size_t>(n));
  return true;
}

bool Connection::closed_within(int timeout_ms) {
  if (fd_ < 0) return true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    if (!fill()) return true;
  }
}

Response Connection::request(const std::string& method, const std::string& path,
                             const Headers& headers, const std::string& body) {
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [name, value] : headers) req += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST") {
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  req += "\r\n" + body;
  send_raw(req);
  return read_response();
}

Response Connection::read_response() {
  Response r;
  if (fd_ < 0) return r;
  std::size_t end;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill()) return r;
  }
  std::istringstream head(buffer_.substr(0, end));
  buffer_.erase(0, end + 4);
  std::string line;
  std::getline(head, line);
  std::istringstream status_line(line);
  std::string version;
  status_line >> version >> r.status;
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    r.headers[lower(line.substr(0, colon))] = value;
  }
  if (r.has("content-length")) {
    const auto length = static_cast<std::size_t>(std::stoll(r.header("content-length")));
    while (buffer_.size() < length && fill()) {
    }
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, std::min(length, buffer_.size()));
  } else {
    while (fill()) {
    }
    r.body = std::move(buffer_);
    buffer_.clear();
  }
  return r;
}

Response http(int port, const std::string& method, const std::string& path, const Headers& headers,
              const std::string& body) {
  Connection c(port);
  return c.request(method, path, headers, body);
}

nlohmann::json admin_stats(const Provider& p, const Headers& headers) {
  const auto r = http(p.admin_port(), "GET", "/admin/stats", headers);
  return r.status == 200 ? nlohmann::json::parse(r.body) : nlohmann::json();
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
    } else {
      field += c;
    }
  }
  return rows;
}

std::vector<std::string> provider_args(const Fields& fields) {
  std::vector<std::string> args;
  for (const auto& [field, value] : fields) {
    for (const auto& f : stampede::kProviderFlags) {
      if (f.field == field) {
        args.emplace_back(f.flag);
        args.push_back(value);
      }
    }
  }
  return args;
}

stampede::ProviderConfig provider_config(const Fields& fields) {
  std::vector<stampede::FieldOverride> overrides;
  nlohmann::json outages = nlohmann::json::array();
  for (const auto& [field, value] : fields) {
    if (field == "provider.outages") {
      outages.push_back(value);
    } else {
      overrides.push_back({field, value});
    }
  }
  if (!outages.empty()) overrides.push_back({"provider.outages", outages});
  const auto s = stampede::build_scenario("", overrides);
  if (!s) throw std::runtime_error(s.error());
  return s->provider;
}

}  // namespace provider_test
