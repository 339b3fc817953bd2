#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "support/http_client.hpp"

// A server-sent-events reader over a raw loopback socket (GET /admin/live): the answer's head,
// then its chunks undone and its events parsed, one at a time as the test asks for them.
namespace support {

struct StreamOptions {
  Headers headers;
  // The socket's receive buffer, set before connecting (0: the kernel's): a small one makes
  // a reader that stops reading stall the server's writes soon.
  int receive_buffer = 0;
};

class EventStream {
 public:
  EventStream(int port, const std::string& path, const StreamOptions& options = {});
  ~EventStream();
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // The answer's status and headers (names lowercased); status 0 if none came.
  const Response& head() const { return head_; }
  // The next event's data, parsed; none if the stream ends (or nothing comes in timeout_ms,
  // a safety net, never a pass/fail threshold).
  std::optional<nlohmann::json> next(int timeout_ms = 30'000);
  // Whether the server has closed the connection: reads (and drops) what it had sent, up to
  // timeout_ms.
  bool closed_within(int timeout_ms);

 private:
  bool fill(int timeout_ms);  // more bytes into raw_; false at the end or on timeout
  bool read_head();
  bool unchunk();  // moves whole chunks from raw_ to text_; false at the last chunk

  int fd_ = -1;
  Response head_;
  std::string raw_;   // bytes read, not yet unchunked
  std::string text_;  // the event stream's text, not yet parsed
  bool ended_ = false;
};

}  // namespace support
