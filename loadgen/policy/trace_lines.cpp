#include "policy/trace_lines.hpp"

#include <algorithm>
#include <cstring>

#include "utf8.hpp"

namespace stampede {
namespace {

std::string size_text(std::size_t bytes) {
  if (bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// The 0-based offset of the first byte that is not well-formed UTF-8, if any.
std::optional<std::size_t> first_non_utf8(std::string_view text) {
  const std::string valid = valid_utf8(text);
  if (valid == text) return std::nullopt;
  const auto diff = std::mismatch(text.begin(), text.end(), valid.begin(), valid.end()).first;
  // The replacement may share a lead byte with what it replaced: back to the sequence's start.
  auto at = static_cast<std::size_t>(diff - text.begin());
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

// A read's size: large enough that the reads cost nothing beside the parsing, small enough
// that the buffer stays a few MiB.
constexpr std::size_t kTraceBlock = std::size_t{1} << 20;

// No NUL and nothing but ASCII, as almost every log line: the slower look that names a bad
// byte is not needed. Branch-free, so the compiler checks many bytes at a time.
bool plain_ascii(std::string_view text) {
  unsigned char lowest = 0xFF, highest = 0;
  for (const char c : text) {
    lowest = std::min(lowest, static_cast<unsigned char>(c));
    highest = std::max(highest, static_cast<unsigned char>(c));
  }
  return lowest != 0 && highest < 0x80;
}

// The offset of the first byte in [from, to) that is a NUL or not ASCII, or `to`: a block's
// bytes checked a chunk at a time, and only a chunk with such a byte looked at byte by byte.
std::size_t first_suspect(const char* data, std::size_t from, std::size_t to) {
  constexpr std::size_t kChunk = 64;
  for (; from < to; from += kChunk) {
    const std::size_t n = std::min(kChunk, to - from);
    if (n == kChunk ? plain_ascii({data + from, kChunk}) : plain_ascii({data + from, n})) continue;
    for (std::size_t i = from; i < from + n; ++i) {
      const auto c = static_cast<unsigned char>(data[i]);
      if (c == 0 || c >= 0x80) return i;
    }
  }
  return to;
}

}  // namespace

std::string trace_position(std::int64_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
}

TraceLines::TraceLines(std::istream& in, std::size_t max_line)
    : in_(in),
      max_line_(max_line),
      size_(max_line + 1 + std::max(max_line, kTraceBlock)),
      buffer_(new char[size_]) {}

std::optional<std::string_view> TraceLines::refuse(std::string why) {
  error_ = std::move(why);
  return std::nullopt;
}

// Moves the part line still unread to the front and reads a block after it; false on an error.
bool TraceLines::fill() {
  const bool known = suspect_ < end_;  // a suspect byte is still ahead: the new ones can wait
  std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
  end_ -= begin_;
  suspect_ -= begin_;
  begin_ = 0;
  in_.read(buffer_.get() + end_, static_cast<std::streamsize>(size_ - end_));
  const auto read = static_cast<std::size_t>(in_.gcount());
  if (!known) suspect_ = first_suspect(buffer_.get(), end_, end_ + read);
  end_ += read;
  if (in_.bad()) {
    refuse("line " + std::to_string(line_ + 1) +
           ": the trace could not be read (a directory, or an I/O error); give a readable file");
    return false;
  }
  eof_ = read == 0 || in_.eof();
  return true;
}

std::optional<std::string_view> TraceLines::next() {
  if (!error_.empty()) return std::nullopt;
  while (true) {
    const char* from = buffer_.get() + begin_;
    const std::size_t left = end_ - begin_;
    const auto* nl = static_cast<const char*>(std::memchr(from, '\n', left));
    if (nl || (eof_ && left > 0)) {
      const std::size_t length = nl ? static_cast<std::size_t>(nl - from) : left;
      const std::size_t line_end = begin_ + length;
      begin_ += nl ? length + 1 : length;
      ++line_;
      if (length > max_line_) return too_long();
      if (line_end <= suspect_) return without_cr({from, length});
      // The line has the block's first suspect byte: looked at whole, then the next found.
      auto text = checked(without_cr({from, length}));
      suspect_ = first_suspect(buffer_.get(), begin_, end_);
      return text;
    }
    // A line without its end that already passes the bound is refused unread.
    if (left > max_line_) {
      ++line_;
      return too_long();
    }
    if (eof_ || !fill()) return std::nullopt;
  }
}

std::optional<std::string_view> TraceLines::too_long() {
  return refuse("line " + std::to_string(line_) + " is longer than " + size_text(max_line_) +
                ": this is not a log, CSV or HAR file with one record a line; give one");
}

std::string_view TraceLines::without_cr(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

std::optional<std::string_view> TraceLines::checked(std::string_view text) {
  if (plain_ascii(text)) return text;
  if (const void* nul = std::memchr(text.data(), '\0', text.size()))
    return refuse(trace_position(line_, static_cast<const char*>(nul) - text.data() + 1) +
                  "a NUL byte: the trace is not a text file; give a log, CSV or HAR file");
  if (const auto bad = first_non_utf8(text))
    return refuse(trace_position(line_, *bad + 1) +
                  "a byte that is not UTF-8: the trace is not a text file; give a log, CSV or "
                  "HAR file (convert another encoding with iconv -t UTF-8)");
  return text;
}

}  // namespace stampede
