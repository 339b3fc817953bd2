#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario.hpp"

// Drives the real fakeprovider binary over real loopback sockets: no HTTP library between the
// test and the wire, so what the test sees is exactly what a client would.
namespace provider_test {

// A fresh directory under /tmp, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

struct Exited {
  int code = -1;  // -1: did not exit on its own (killed after the safety timeout)
  std::string out;
  std::string err;
};

// Runs fakeprovider with args to its exit, for the runs that must refuse to start.
Exited run_to_exit(const std::vector<std::string>& args);

// A running fakeprovider on ephemeral loopback ports, read from its first two lines, with
// its arrival log and final stats going to its own temporary directory.
class Provider {
 public:
  explicit Provider(std::vector<std::string> args);
  ~Provider();  // SIGKILL if still running
  Provider(const Provider&) = delete;
  Provider& operator=(const Provider&) = delete;

  bool started() const { return data_port_ > 0 && admin_port_ > 0; }
  pid_t pid() const { return pid_; }
  int data_port() const { return data_port_; }
  int admin_port() const { return admin_port_; }
  const std::vector<std::string>& first_lines() const { return lines_; }
  const TempDir& dir() const { return dir_; }
  std::string arrivals_path() const { return dir_.file("arrivals.csv"); }
  std::string stats_path() const { return dir_.file("stats.json"); }

  void signal(int sig);
  // Waits until /proc shows the process in this state ('T': stopped); false on timeout.
  bool wait_state(char state) const;
  // SIGTERM and wait for the exit code (-1 if it had to be killed).
  int stop();
  std::string err() const;

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int data_port_ = 0;
  int admin_port_ = 0;
  std::vector<std::string> lines_;
};

struct Response {
  int status = 0;  // 0: the connection closed (or reset) before an answer
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  bool has(const std::string& name) const { return headers.count(name) > 0; }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  std::int64_t header_int(const std::string& name) const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// One keep-alive connection to 127.0.0.1:port.
class Connection {
 public:
  explicit Connection(int port);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool ok() const { return fd_ >= 0; }
  Response request(const std::string& method, const std::string& path, const Headers& headers = {},
                   const std::string& body = "");
  void send_raw(const std::string& bytes);
  // Half-close, so the server sees the end of what was sent.
  void shutdown_write();
  // The next response; status 0 when the connection closes first.
  Response read_response();
  // Whether the server closes (or resets) the connection within timeout_ms; bytes it sends
  // meanwhile are kept for read_response.
  bool closed_within(int timeout_ms);

 private:
  bool fill();  // reads more into buffer_; false at end of stream or error
  int fd_ = -1;
  std::string buffer_;
};

Response http(int port, const std::string& method, const std::string& path,
              const Headers& headers = {}, const std::string& body = "");

// GET /admin/stats, parsed.
nlohmann::json admin_stats(const Provider& p, const Headers& headers = {});

// CSV rows (RFC 4180 quoting), the header row included.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

// Provider flags for fakeprovider from scenario fields, and the same fields as the config the
// test replays through the model: one list, so the two cannot drift.
using Fields = std::vector<std::pair<std::string, std::string>>;
std::vector<std::string> provider_args(const Fields& fields);
stampede::ProviderConfig provider_config(const Fields& fields);

}  // namespace provider_test
