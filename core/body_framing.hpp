#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stampede {

// Reads an HTTP/1.1 message's body as it comes in, by its Content-Length or chunked (RFC 9112
// 6-7), strictly: what is fed is taken up to the body's end, and its content (the chunks'
// data, without their framing) kept in a string, up to a limit. The native server reads
// requests' bodies with it, proxy mode the upstream's answers.
class BodyFraming {
 public:
  static BodyFraming of_length(std::uint64_t length);
  static BodyFraming chunked();

  // Takes bytes from the start of input, no further than the body's end; returns how many.
  // Up to keep_limit bytes of content are appended to kept (null: none kept).
  std::size_t feed(std::string_view input, std::string* kept, std::size_t keep_limit);
  bool done() const { return state_ == State::kDone; }
  bool failed() const { return state_ == State::kFailed; }

 private:
  enum class State {
    kData,       // data_left_ more bytes of content (a length's, or a chunk's)
    kSize,       // a chunk's size, in hex
    kExtension,  // after the size, up to the line's CR
    kSizeLf,     // the LF after the size line's CR
    kDataCr,     // the CR after a chunk's data
    kDataLf,     // and its LF
    kTrailer,    // a trailer line's bytes, after its first
    kTrailerLf,  // the LF after a trailer line's CR
    kLineStart,  // a trailer line's first byte, or the CR of the blank line that ends it all
    kLastLf,     // the blank line's LF
    kDone,
    kFailed,
  };
  // One framing byte; false when it is not one the grammar allows there.
  bool step(char c);
  // A byte of a line whose content is not kept (an extension, a trailer field), up to its CR.
  bool skip_line_byte(char c, State after_cr);

  State state_ = State::kDone;
  bool chunked_ = false;
  std::uint64_t data_left_ = 0;
  int size_digits_ = 0;
};

}  // namespace stampede
