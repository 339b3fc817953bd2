#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stampede {

// Reads an HTTP/1.1 message's body as it comes in, by its Content-Length or chunked (RFC 9112
// 6-7): what is fed is taken up to the body's end, and its content (the chunks' data, without
// their framing) kept in a string, up to a limit. The native server reads requests' bodies
// with it, AnswerParser answers' (proxy mode the upstream's, loadgen the provider's). Its lines
// are read strictly (RFC 9112 7.1): every line ends in CRLF, and an extension or a trailer
// field holds no control character.
class BodyFraming {
 public:
  // The framing around the data is skipped, never kept; these bounds stop a peer from holding
  // the reader in one line forever: a chunk's size line with its extensions (or the line end
  // after its data), and the whole trailer section, line ends counted.
  static constexpr std::size_t kMaxChunkLine = 4 * 1024;
  static constexpr std::size_t kMaxTrailers = 16 * 1024;

  static BodyFraming of_length(std::uint64_t length);
  static BodyFraming chunked();

  // Takes bytes from the start of input, no further than the body's end; returns how many.
  // Up to keep_limit bytes of content are appended to kept (null: none kept).
  std::size_t feed(std::string_view input, std::string* kept, std::size_t keep_limit);
  bool done() const { return state_ == State::kDone; }
  bool failed() const { return state_ == State::kFailed; }
  // Why it failed, in a short phrase ("bad chunk size"); empty unless failed().
  std::string_view why() const { return why_; }

 private:
  enum class State {
    kData,          // data_left_ more bytes of content (a length's, or a chunk's)
    kSize,          // a chunk's size, in hex
    kExtension,     // the rest of the size line
    kDataEnd,       // the line end after a chunk's data
    kTrailerStart,  // a trailer line's first byte, or the blank line that ends the body
    kTrailer,       // the rest of a trailer line
    kDone,
    kFailed,
  };
  // One framing byte; false, and failed with why_, when it is not one the grammar allows there.
  bool step(char c);
  bool line_byte(char c);
  bool end_line();
  void begin_line(State state, std::size_t budget);
  bool fail(std::string_view why);

  State state_ = State::kDone;
  bool chunked_ = false;
  bool cr_ = false;  // a CR was read: the line's LF must follow
  std::uint64_t data_left_ = 0;
  int size_digits_ = 0;
  std::size_t budget_ = 0;  // bytes the current line (the trailer section) may still take
  std::string_view why_;
};

}  // namespace stampede
