#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stampede {

// Reads an HTTP/1.1 message's body as it comes in, by its Content-Length or chunked (RFC 9112
// 6-7): what is fed is taken up to the body's end, and its content (the chunks' data, without
// their framing) kept in a string, up to a limit. The native server reads requests' bodies
// with it, proxy mode the upstream's answers, loadgen the provider's answers.
class BodyFraming {
 public:
  // The framing around the data is skipped, never kept; these bounds stop a peer from holding
  // the reader in one line forever: a chunk's size line with its extensions (or the line end
  // after its data), and the whole trailer section, line ends counted.
  static constexpr std::size_t kMaxChunkLine = 4 * 1024;
  static constexpr std::size_t kMaxTrailers = 16 * 1024;

  // How the framing's lines are read. kStrict, as a server reads a request (RFC 9112 7.1):
  // every line ends in CRLF, and an extension or a trailer field holds no control character.
  // kLenient, as libcurl reads an answer (loadgen's two clients count answers alike): a bare LF
  // ends a line too (RFC 9112 2.2 lets a recipient take it), and an extension's or a trailer's
  // bytes are skipped whatever they are.
  enum class Lines { kStrict, kLenient };

  static BodyFraming of_length(std::uint64_t length);
  static BodyFraming chunked(Lines lines = Lines::kStrict);

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
  bool lenient_ = false;
  bool cr_ = false;  // a CR was read: the line's LF must follow
  std::uint64_t data_left_ = 0;
  int size_digits_ = 0;
  std::size_t budget_ = 0;  // bytes the current line (the trailer section) may still take
  std::string_view why_;
};

}  // namespace stampede
