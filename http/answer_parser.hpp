#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "body_framing.hpp"
#include "header_field.hpp"

namespace stampede {

// An x-should-retry value as the Anthropic and OpenAI SDKs read it: "true" asks for a retry
// whatever the status, "false" forbids one; anything else says nothing.
std::optional<bool> parse_should_retry(std::string_view value);

// One header line as libcurl hands it over ("Name: value\r\n"), split at its first colon;
// none for a line without one (the head's empty last line, a status line).
std::optional<HeaderField> split_header_line(std::string_view line);

// Whether a header's name is `lower_name`, in any case.
bool header_name_is(std::string_view name, std::string_view lower_name);

// An HTTP/1.1 answer read as its bytes come in (RFC 9112): the status, the few headers a
// retrying client acts on, and the body framed as the head says (Content-Length, chunked, or
// up to the connection's close), interim (1xx) answers skipped. loadgen's native client reads
// the provider's answers with it, proxy mode the upstream's. Strict, as a proxy must be: what
// another reader could take differently (a head line ended by a bare LF or a bare CR,
// whitespace before a colon, obs-fold, a control byte, a status line not HTTP/1.0 or 1.1 and
// three digits, a Transfer-Encoding other than chunked alone, two lengths) is no answer at all.
// It owns no memory: what a caller wants kept beyond the few headers it reads (every header
// field, the body) goes where the caller says. No I/O.
class AnswerParser {
 public:
  enum class State { kIncomplete, kComplete, kError };
  using Fields = std::vector<std::pair<std::string, std::string>>;

  // The bounds on an answer's heads, its interim (1xx) ones' included: past either, it is
  // malformed. loadgen's libcurl transport and proxy mode's libcurl pool hold answers to them
  // too.
  static constexpr std::size_t kMaxHead = 8 * 1024;
  static constexpr int kMaxInterim = 10;

  // Ready for the answer to a new request. head_request: it was HEAD (no body follows).
  // max_head: the most its heads may take, at most kMaxHead. fields: where every header field
  // of the answer's head goes, in order, its value trimmed (cleared here; interim heads' never
  // go there); null: none kept but the few below.
  void reset(bool head_request, std::size_t max_head = kMaxHead, Fields* fields = nullptr);
  // Reads bytes that arrived, appending the body's content to *body (null: skipped, whatever
  // its size). kComplete once the whole answer is in (*used: how many of the n bytes were this
  // answer's; the rest are not), kError if it is malformed (error() says how), else
  // kIncomplete (all n used). Bytes fed after kComplete are none of this answer's: none is
  // used, and the connection is no longer reusable(). After kError, feed must not be called
  // again before reset.
  State feed(const char* data, std::size_t n, std::size_t* used, std::string* body = nullptr);
  // The connection ended: completes a body that runs to its end; any other unfinished answer
  // is an error.
  State close();

  int status() const;  // the final status (1xx interim answers skipped)
  // The answer's head is in (status, headers and framing), its body maybe not.
  bool head_done() const { return phase_ >= Phase::kBody || state_ == State::kComplete; }
  // The length the head declared (a HEAD's or a 304's too, whose body is not sent); none for a
  // chunked body or one that runs to the connection's end.
  std::optional<std::uint64_t> content_length() const;
  std::string_view retry_after() const;  // the Retry-After value, trimmed; empty: none
  // x-should-retry: true or false (parse_should_retry); none when absent or anything else.
  std::optional<bool> should_retry() const;
  std::string_view etag() const;  // the ETag value, trimmed; empty: none
  // The three above as header name/value pairs (value empty: absent; x-should-retry as
  // "true" or "false"), for a reader that takes either client's headers alike.
  std::array<HeaderField, 3> answer_headers() const;
  // What the head says of the connection: it may carry the next request.
  bool keep_alive() const;
  // keep_alive(), and no byte came past the answer's end: such bytes would be read as the next
  // answer, so the connection is spent.
  bool reusable() const { return keep_alive_ && !bytes_past_end_; }
  std::string_view error() const;  // empty unless kError
  // Whether an answer began: a whole status line came, or bytes no status line starts with.
  // A close or reset before that is no answer at all, as libcurl counts it.
  bool answer_began() const { return began_; }

 private:
  // Where the next byte goes: a line of the head, or (the last two) the body.
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

  std::size_t take_body(const char* data, std::size_t available, std::string* body);
  // The bytes of a line that need no decision of their own, taken in one pass: how many of the
  // available were taken (the rest go through step).
  std::size_t take_plain(const char* data, std::size_t available);
  std::size_t keep_value(const char* data, std::size_t limit);
  void copy_field_bytes(const char* data, std::size_t n);
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
  std::size_t max_head_ = kMaxHead;
  Fields* fields_ = nullptr;
  // The current line: its length so far (line ends excluded), its first bytes, and a CR read
  // that must be followed by LF.
  std::size_t line_length_ = 0;
  std::array<char, 20> line_start_{};
  bool cr_ = false;
  std::size_t budget_ = kMaxHead;  // bytes the answer's heads may still take
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
  bool bytes_past_end_ = false;

  BodyFraming body_;
  std::string_view error_;
};

}  // namespace stampede
