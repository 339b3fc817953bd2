#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "body_framing.hpp"

namespace stampede {

// An HTTP/1.1 answer read as its bytes come in (RFC 9112): the head, then the body's bytes
// framed as the head says (Content-Length, chunked, or up to the connection's end), interim
// 1xx answers skipped. Pure: no socket, no clock.
class AnswerParser {
 public:
  enum class State { kHead, kBody, kDone, kBad };
  // head_request: the answer to a HEAD has no body, whatever its head says.
  explicit AnswerParser(bool head_request) : head_request_(head_request) {}

  // Reads data, appending the body's bytes to body; returns how many bytes it used (all of
  // them, unless the answer ended or went bad within them).
  std::size_t feed(std::string_view data, std::string& body);
  // The connection ended: the end of a body that runs to it, anything else broken.
  void end_of_stream();

  State state() const { return state_; }
  const std::string& error() const { return error_; }  // kBad: why
  // The head, from kBody on.
  int status() const { return status_; }
  const std::vector<std::pair<std::string, std::string>>& headers() const { return headers_; }
  std::optional<std::size_t> content_length() const { return length_; }
  // Whether the connection can carry another request once this answer is done.
  bool reusable() const { return reusable_; }

  // The most a head may take.
  static constexpr std::size_t kMaxHeadBytes = 64 * 1024;

 private:
  std::size_t feed_head(std::string_view data);
  std::size_t feed_body(std::string_view data, std::string& body);
  bool parse_head(std::string_view head);
  void fail(std::string why);

  bool head_request_;
  State state_ = State::kHead;
  std::string error_;
  std::string pending_;  // a head not yet whole
  int status_ = 0;
  std::vector<std::pair<std::string, std::string>> headers_;
  std::optional<std::size_t> length_;
  bool chunked_ = false;
  bool to_close_ = false;  // the body runs to the connection's end
  bool reusable_ = false;
  BodyFraming framing_;  // the body by its length or chunks; not when it runs to the end
};

}  // namespace stampede
