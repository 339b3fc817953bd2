#pragma once

// What the proxy tests share: the real upstream they put fakeprovider in front of
// (upstream_server.py, Python's http.server), and curl as the client that reads chunked and
// binary answers.
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

namespace support {

// The port a test upstream prints on its first line once it listens; 0 if it exits first.
inline int printed_port(Process& process) {
  wait_until([&] { return process.out().find('\n') != std::string::npos || !process.running(); },
             kSafetyTimeoutMs);
  const std::string out = process.out();
  return out.find('\n') != std::string::npos ? std::stoi(out) : 0;
}

// tests/proxy/upstream_server.py on 127.0.0.1 (port 0: a free one), ready once it printed its
// port; killed with the object.
class UpstreamServer {
 public:
  explicit UpstreamServer(int port = 0)
      : process_(find_program("python3"),
                 {source_path("tests/proxy/upstream_server.py"), std::to_string(port)}, dir_,
                 "upstream"),
        port_(printed_port(process_)) {}
  bool started() const { return port_ > 0; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The requests it served, its own /__count and /__release aside.
  int served() const { return std::stoi(http(port_, "GET", "/__count").body); }
  // Lets an SSE stream send its next event.
  void release() const { http(port_, "POST", "/__release"); }

 private:
  TempDir dir_;
  Process process_;
  int port_ = 0;
};

// curl as the client: the answer's status line and headers (-D) and its body, bytes as they
// came, decoded from chunked.
struct Fetched {
  int code = -1;  // curl's exit code
  std::string head;
  std::string body;
};

inline Fetched fetch(const std::string& url, const std::vector<std::string>& options = {}) {
  TempDir dir;
  std::vector<std::string> args = {"-s", "-D", dir.file("head"), "-o", dir.file("body")};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back(url);
  const auto r = run_program(find_program("curl"), args);
  return {r.code, read_file(dir.file("head")), read_file(dir.file("body"))};
}

}  // namespace support
