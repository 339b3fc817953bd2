#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

// A bare HTTP/1.1 client over real loopback sockets: no HTTP library between the test and the
// wire, so what the test sees is exactly what a client would.
namespace support {

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

// A response's status and headers from its head (the text before the blank line).
Response parse_head(const std::string& head);

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
  // Reads until what came in holds text (true), the connection ends or timeout_ms passes; what
  // came in stays for read_response and received().
  bool wait_for(const std::string& text, int timeout_ms);
  const std::string& received() const { return buffer_; }

 private:
  bool fill();  // reads more into buffer_; false at end of stream or error
  int fd_ = -1;
  std::string buffer_;
};

Response http(int port, const std::string& method, const std::string& path,
              const Headers& headers = {}, const std::string& body = "");

}  // namespace support
