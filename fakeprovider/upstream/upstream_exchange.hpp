#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede {

class UpstreamPool;

// Why an exchange ended without the whole answer.
enum class UpstreamFailure {
  kNone,
  kRefused,   // no connection could be made
  kTimedOut,  // silent for the configured timeout
  kBroken,    // the connection was reset or closed, or the answer was not HTTP
  kStopped,   // the provider is stopping
  kPoolBusy,  // every pooled connection stayed busy for the configured timeout: never sent
};
// refused, timed_out, broken, stopped, pool_busy: the error bodies' names.
std::string_view to_string(UpstreamFailure f);

// One request forwarded to the upstream and its answer coming back, a piece at a time. The
// data plane fills the request side, the pool the answer side; both on one loop's thread.
struct UpstreamExchange {
  virtual ~UpstreamExchange() = default;

  // The request.
  std::string method;
  std::string target;                    // the request line's, as it came: path and query
  std::vector<std::string> headers;      // "Name: value"
  std::optional<std::size_t> body_size;  // none: no body
  std::string body;                      // what came in of it so far (kept whole to resend)
  std::size_t body_sent = 0;
  // The most the answer's head may take (the reader holds it to its own bound too).
  std::size_t max_answer_head = std::numeric_limits<std::size_t>::max();
  int attempt = 0;  // which send of it the pool is on: 1, or 2 once resent (resend_rule.hpp)

  // The answer.
  int status = 0;
  std::vector<std::pair<std::string, std::string>> answer_headers;
  std::optional<std::size_t> answer_size;  // its Content-Length, when it gave one
  bool head_done = false;                  // status and headers are in
  std::string answer_body;                 // received, not yet taken
  std::size_t answer_taken = 0;            // of answer_body
  bool ended = false;
  UpstreamFailure failure = UpstreamFailure::kNone;
  std::string failure_detail;  // libcurl's words for it

  bool body_complete() const { return !body_size || body.size() >= *body_size; }
  std::string_view answer_pending() const {
    return std::string_view(answer_body).substr(answer_taken);
  }
  // n bytes of the answer were passed on; returns how many are still pending. What was passed
  // on is let go once it is at least what is pending (each byte moved once, on average), so a
  // client that never quite catches up costs the pending bytes and as many again, not the whole
  // answer.
  std::size_t take(std::size_t n) {
    answer_taken += n;
    const std::size_t pending = answer_body.size() - answer_taken;
    if (answer_taken >= pending) {
      answer_body.erase(0, answer_taken);
      answer_taken = 0;
    }
    return pending;
  }
  // Ends it without the whole answer.
  void fail(UpstreamFailure why, std::string detail) {
    ended = true;
    failure = why;
    failure_detail = std::move(detail);
  }

  // The pool's own: the pool, its libcurl handle, its header list, whether it paused either way.
  UpstreamPool* pool = nullptr;
  void* handle = nullptr;
  void* header_list = nullptr;
  bool reading_paused = false;  // waiting for more of the request body
  bool writing_paused = false;  // the answer's buffer is full
  std::size_t head_bytes = 0;   // of the answer's heads, interim ones' included
  int interims = 0;             // interim (1xx) answers read
};

// What the pool tells the data plane, on the loop's thread, never from inside another
// exchange's call.
struct UpstreamEvents {
  virtual ~UpstreamEvents() = default;
  virtual void on_head(UpstreamExchange& x) = 0;  // status and headers are in
  virtual void on_body(UpstreamExchange& x) = 0;  // more of the answer's body is in
  virtual void on_end(UpstreamExchange& x) = 0;   // the answer is whole, or failed
};

}  // namespace stampede
