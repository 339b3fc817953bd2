#pragma once

#include <algorithm>
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
// 1xx answers skipped. Strict, as a proxy must be: what another reader could take differently
// (a head line ended by a bare LF, whitespace before a colon, obs-fold, a control byte, a
// status not three digits, a Transfer-Encoding other than chunked alone, two lengths) is no
// answer at all. Pure: no socket, no clock.
class AnswerParser {
 public:
  enum class State { kHead, kBody, kDone, kBad };
  // head_request: the answer to a HEAD has no body, whatever its head says. max_head: the most
  // its heads may take, at most kMaxHeadBytes.
  explicit AnswerParser(bool head_request, std::size_t max_head = kMaxHeadBytes)
      : head_request_(head_request),
        max_head_(std::min(max_head, kMaxHeadBytes)),
        head_budget_(max_head_) {}

  // Reads data, appending the body's bytes to body; returns how many bytes it used (all of
  // them, unless the answer ended or went bad within them). Bytes past the answer's end make
  // the connection unfit for another answer: they would be read as the next one.
  std::size_t feed(std::string_view data, std::string& body);
  // The connection ended: the end of a body that runs to it, anything else broken.
  void end_of_stream();

  State state() const { return state_; }
  const std::string& error() const { return error_; }  // kBad: why
  // The head, from kBody on.
  int status() const { return head_.status; }
  const std::vector<std::pair<std::string, std::string>>& headers() const { return head_.headers; }
  // The length the head declared (a HEAD's or a 304's too, whose body is not sent); none for a
  // chunked body or one that runs to the connection's end.
  std::optional<std::size_t> content_length() const { return head_.length; }
  // Whether the connection can carry another request once this answer is done.
  bool reusable() const { return reusable_; }

  // The most all of an answer's heads may take, its interim ones' included (docs/PROXY.md).
  static constexpr std::size_t kMaxHeadBytes = 8 * 1024;
  // The most interim (1xx) answers before the answer: past them, no answer is coming.
  static constexpr int kMaxInterim = 10;

 private:
  std::size_t feed_head(std::string_view data);
  std::size_t feed_body(std::string_view data, std::string& body);
  void take_line(std::string_view line);
  void take_status_line(std::string_view line);
  void take_field(std::string_view line);
  void take_length(std::string_view list);
  void take_coding(std::string_view list);
  void end_head();
  void begin_body();
  void fail(std::string why);

  // One head's own: an interim answer's say nothing of the answer's.
  struct Head {
    int status = 0;
    bool http11 = false;
    bool close = false;       // Connection: close
    bool keep_alive = false;  // Connection: keep-alive (an HTTP/1.0 answer's way to stay)
    std::vector<std::pair<std::string, std::string>> headers;
    std::optional<std::size_t> length;
    bool transfer_encoding = false;
    int chunked_codings = 0;
    bool other_coding = false;
  };

  bool head_request_;
  std::size_t max_head_;
  State state_ = State::kHead;
  std::string error_;
  std::string pending_;  // a head line not yet whole
  std::size_t head_budget_;
  int interims_ = 0;
  bool in_fields_ = false;  // past the current head's status line
  Head head_;
  bool to_close_ = false;  // the body runs to the connection's end
  bool reusable_ = false;
  BodyFraming framing_;  // the body by its length or chunks; not when it runs to the end
};

}  // namespace stampede
