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
  if (std::all_of(text.begin(), text.end(), [](char c) { return (c & 0x80) == 0; }))
    return std::nullopt;  // ASCII, as almost every log line: no copy
  const std::string valid = valid_utf8(text);
  if (valid == text) return std::nullopt;
  const auto diff = std::mismatch(text.begin(), text.end(), valid.begin(), valid.end()).first;
  // The replacement may share a lead byte with what it replaced: back to the sequence's start.
  auto at = static_cast<std::size_t>(diff - text.begin());
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

std::string trace_position(std::int64_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
}

TraceLines::TraceLines(std::istream& in, std::size_t max_line)
    : in_(in), max_line_(max_line), buffer_(max_line + 2, '\0') {}

std::optional<std::string_view> TraceLines::refuse(std::string why) {
  error_ = std::move(why);
  return std::nullopt;
}

std::optional<std::string_view> TraceLines::next() {
  if (!error_.empty() || !in_.good()) return std::nullopt;
  // One byte more than the bound fits: a line that fills it is too long, and what is left of
  // it is never read.
  in_.getline(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  const auto read = static_cast<std::size_t>(in_.gcount());
  if (in_.bad())
    return refuse("line " + std::to_string(line_ + 1) +
                  ": the trace could not be read (a directory, or an I/O error); give a "
                  "readable file");
  if (read == 0 && in_.eof()) return std::nullopt;
  ++line_;
  const bool ended = !in_.eof() && !in_.fail();  // the '\n' was read and counted
  std::size_t length = ended ? read - 1 : read;
  if (in_.fail() && !in_.eof()) length = buffer_.size();  // stopped by the bound
  if (length > max_line_)
    return refuse("line " + std::to_string(line_) + " is longer than " + size_text(max_line_) +
                  ": this is not a log, CSV or HAR file with one record a line; give one");
  std::string_view text(buffer_.data(), length);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
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
