#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// A loopback HTTP server that answers from a script, for the tests that need an answer no
// fakeprovider gives: malformed framing, interim answers, hostile headers.
namespace support {

// One scripted answer: its bytes, then whether the server closes the connection. An empty
// answer with close drops the request unanswered.
struct Answer {
  std::string bytes;
  bool close = false;
};

// A loopback server that answers the n-th request it reads with script[n] (the last one
// again past the end), and keeps every request it read with the connection it came on.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<Answer> script);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1?q=1"; }
  int port() const { return port_; }
  struct Request {
    int connection;
    std::string text;
  };
  std::vector<Request> requests();

 private:
  void serve();
  void read_from(int fd);

  std::vector<Answer> script_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::map<int, std::string> buffers_;
  std::map<int, int> connection_of_;
  int next_connection_ = 0;
  std::size_t answered_ = 0;
  std::mutex mu_;
  std::vector<Request> requests_;
};

}  // namespace support
