#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "body_framing.hpp"

namespace stampede {

// An HTTP/1.1 response read incrementally from a client connection as it arrives: the status,
// the few headers a retrying client acts on, and the body's framing (Content-Length, chunked,
// or up to the connection's close). The body is skipped, never kept. No I/O.
// An x-should-retry value as the Anthropic and OpenAI SDKs read it: "true" asks for a retry
// whatever the status, "false" forbids one; anything else says nothing.
std::optional<bool> parse_should_retry(std::string_view value);

// A header's name and value, the value without the whitespace around it (RFC 9110 5.5:
// optional whitespace is not part of the value) or the line's end.
struct HeaderField {
  std::string_view name;
  std::string_view value;
};

// One header line as libcurl hands it over ("Name: value\r\n"), split at its first colon;
// none for a line without one (the head's empty last line, a status line).
std::optional<HeaderField> split_header_line(std::string_view line);

// Whether a header's name is `lower_name`, in any case.
bool header_name_is(std::string_view name, std::string_view lower_name);

class HttpResponseParser {
 public:
  enum class State { kIncomplete, kComplete, kError };

  // The bounds on an answer's head, interim (1xx) heads included: past either, the answer is
  // malformed. The libcurl transport holds its answers to the same.
  static constexpr std::size_t kMaxHead = 16 * 1024;
  static constexpr int kMaxInterim = 10;

  // Ready for the answer to a new request; head_request: it was HEAD (no body follows).
  void reset(bool head_request);
  // Reads bytes that arrived. kComplete once the whole response is in (*used: how many of the
  // n bytes were this response's; the rest are not), kError if it is malformed (error() says
  // how, in a short phrase), else kIncomplete (all n used). After kComplete or kError, feed
  // must not be called again before reset.
  State feed(const char* data, std::size_t n, std::size_t* used);
  // The server closed the connection: completes a body that runs to the close; any other
  // unfinished response is an error ("connection closed before the response was complete").
  State close();

  int status() const;                    // the final status (1xx interim responses skipped)
  std::string_view retry_after() const;  // the Retry-After value, trimmed; empty: none
  // x-should-retry: true or false (parse_should_retry); none when absent or anything else.
  std::optional<bool> should_retry() const;
  std::string_view etag() const;  // the ETag value, trimmed; empty: none
  // The three above as header name/value pairs (value empty: absent; x-should-retry as
  // "true" or "false"), for a reader that takes either client's headers alike.
  std::array<HeaderField, 3> answer_headers() const;
  bool keep_alive() const;         // the connection may carry the next request
  std::string_view error() const;  // empty unless kError
  // Whether an answer began: a whole status line came, or bytes no status line starts with.
  // A close or reset before that is no answer at all, as libcurl counts it.
  bool answer_began() const { return began_; }

 private:
  // Where the next byte goes: a line of the head, or (the last two) the body, skipped.
  enum class Phase {
    kStatusLine,
    kHeaderName,
    kHeaderValue,
    kBody,        // framed by its length or chunks (body_)
    kUntilClose,  // up to the connection's close
  };
  enum class Field {
    kOther,
    kRetryAfter,
    kETag,
    kShouldRetry,
    kConnection,
    kContentLength,
    kTransferEncoding
  };
  static constexpr std::size_t kMaxValue = 256;

  // A kept header value in place: a parser on every connection allocates nothing.
  struct Value {
    std::array<char, kMaxValue> text{};
    std::size_t size = 0;
    std::string_view view() const { return {text.data(), size}; }
    void assign(std::string_view s);
  };

  std::size_t skip_body(const char* data, std::size_t available);
  // The bytes of a line that need no decision of their own, taken in one pass: how many of the
  // available were taken (the rest go through step).
  std::size_t take_plain(const char* data, std::size_t available);
  std::size_t keep_value(const char* data, std::size_t limit);
  void step(char c);
  void on_char(char c);
  void on_header_name_char(char c);
  void on_header_value_char(char c);
  void end_line();
  void end_status_line();
  void end_header_line();
  void end_headers();
  void keep(Field field, std::string_view value);
  void keep_content_length(std::string_view list);
  void begin_body(BodyFraming body);
  void complete() { state_ = State::kComplete; }
  void fail(std::string_view why);

  State state_ = State::kIncomplete;
  Phase phase_ = Phase::kStatusLine;
  bool head_request_ = false;
  // The current line: its length so far (line ends excluded), its first bytes, and a CR read
  // that must be followed by LF.
  std::size_t line_length_ = 0;
  std::array<char, 20> line_start_{};
  bool cr_ = false;
  std::size_t budget_ = kMaxHead;  // bytes the current head may still take
  Field field_ = Field::kOther;
  Value value_;  // the current header's value, while its line is read

  int status_ = 0;
  int interims_ = 0;    // 1xx heads read
  bool began_ = false;  // see answer_began()
  bool http11_ = false;
  Value retry_after_;
  Value etag_;
  std::optional<bool> should_retry_;
  bool connection_close_ = false;
  bool connection_keep_alive_ = false;
  bool has_length_ = false;
  std::uint64_t length_ = 0;
  bool has_transfer_encoding_ = false;
  bool other_coding_ = false;
  int chunked_codings_ = 0;
  bool keep_alive_ = false;

  BodyFraming body_;
  std::string_view error_;
};

}  // namespace stampede
