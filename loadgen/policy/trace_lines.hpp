#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace stampede {

// A trace line longer than this is refused: a log line is a few hundred bytes, and a file
// with none (a binary, a minified document) must not be read whole to find out.
inline constexpr std::size_t kMaxTraceLine = std::size_t{1} << 20;

// A trace's lines one at a time, in memory bounded by the longest line allowed: never the
// file whole. A line that is too long or is not text (a NUL byte, bytes that are not UTF-8)
// stops the reading with an error naming its line and column.
class TraceLines {
 public:
  explicit TraceLines(std::istream& in, std::size_t max_line = kMaxTraceLine);

  // The next line, without its "\n" or "\r\n"; none at the end or on an error (error() says
  // which). The view lasts until the next call.
  std::optional<std::string_view> next();
  std::int64_t line() const { return line_; }  // the line next() returned, from 1
  const std::string& error() const { return error_; }

 private:
  std::optional<std::string_view> refuse(std::string why);
  static std::string_view without_cr(std::string_view text);
  std::optional<std::string_view> checked(std::string_view text);
  std::optional<std::string_view> too_long();
  bool fill();

  std::istream& in_;
  std::size_t max_line_;
  // Read a block at a time (a read and a search per block, not per line): the lines not yet
  // given are [begin_, end_), at most one line's bound plus one block.
  std::size_t size_;
  std::unique_ptr<char[]> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  // Every byte in [begin_, suspect_) is ASCII and not NUL, and suspect_ (when before end_) is
  // not: the bytes are checked as they are read, a block at a time, and only a line that
  // holds a suspect byte is looked at whole (for the column of a NUL or a byte not UTF-8).
  std::size_t suspect_ = 0;
  bool eof_ = false;
  std::int64_t line_ = 0;
  std::string error_;
};

// "line 12, column 5: " as every trace error starts.
std::string trace_position(std::int64_t line, std::size_t column);

}  // namespace stampede
