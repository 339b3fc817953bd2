#include "body_framing.hpp"

#include <algorithm>

#include "http_token.hpp"

namespace stampede {
namespace {

// 15 hex digits: more than any body is let be, short of overflow.
constexpr int kMaxSizeDigits = 15;

}  // namespace

BodyFraming BodyFraming::of_length(std::uint64_t length) {
  BodyFraming b;
  b.state_ = length > 0 ? State::kData : State::kDone;
  b.data_left_ = length;
  return b;
}

BodyFraming BodyFraming::chunked() {
  BodyFraming b;
  b.chunked_ = true;
  b.begin_line(State::kSize, kMaxChunkLine);
  return b;
}

std::size_t BodyFraming::feed(std::string_view input, std::string* kept, std::size_t keep_limit) {
  std::size_t used = 0;
  while (used < input.size() && state_ != State::kDone && state_ != State::kFailed) {
    if (state_ == State::kData) {
      const auto n =
          static_cast<std::size_t>(std::min<std::uint64_t>(data_left_, input.size() - used));
      if (kept && kept->size() < keep_limit)
        kept->append(input.substr(used, std::min(n, keep_limit - kept->size())));
      used += n;
      data_left_ -= n;
      if (data_left_ == 0) {
        if (chunked_) {
          begin_line(State::kDataEnd, kMaxChunkLine);
        } else {
          state_ = State::kDone;
        }
      }
      continue;
    }
    step(input[used++]);
  }
  return used;
}

void BodyFraming::begin_line(State state, std::size_t budget) {
  state_ = state;
  budget_ = budget;
  size_digits_ = 0;
}

bool BodyFraming::fail(std::string_view why) {
  state_ = State::kFailed;
  why_ = why;
  return false;
}

bool BodyFraming::step(char c) {
  // The trailer section's budget runs over its lines; a chunk line's is its own.
  if (budget_ == 0) {
    const bool trailers = state_ == State::kTrailerStart || state_ == State::kTrailer;
    return fail(trailers ? "trailers longer than 16 KiB" : "chunk line longer than 4 KiB");
  }
  --budget_;
  if (cr_) {
    cr_ = false;
    return c == '\n' ? end_line() : fail("CR not followed by LF");
  }
  if (c == '\r') {
    cr_ = true;
    return true;
  }
  if (c == '\n') return fail("LF without CR");
  return line_byte(c);
}

bool BodyFraming::line_byte(char c) {
  switch (state_) {
    case State::kSize: {
      const int digit = hex_digit_value(c);
      if (digit >= 0) {
        if (++size_digits_ > kMaxSizeDigits) return fail("chunk size longer than 15 hex digits");
        data_left_ = data_left_ * 16 + static_cast<std::uint64_t>(digit);
        return true;
      }
      if (size_digits_ == 0 || (c != ';' && c != ' ' && c != '\t')) return fail("bad chunk size");
      state_ = State::kExtension;
      return true;
    }
    case State::kExtension:
      return !is_ctl(c) || fail("bad chunk extension");
    case State::kDataEnd:
      return fail("chunk data longer than its size");
    case State::kTrailerStart:
      state_ = State::kTrailer;
      return is_tchar(c) || fail("bad trailer field");
    case State::kTrailer:
      return !is_ctl(c) || fail("bad trailer field");
    default:
      return fail("bad chunked framing");
  }
}

bool BodyFraming::end_line() {
  switch (state_) {
    case State::kSize:
      if (size_digits_ == 0) return fail("bad chunk size");
      [[fallthrough]];
    case State::kExtension:
      if (data_left_ > 0) {
        state_ = State::kData;
      } else {
        begin_line(State::kTrailerStart, kMaxTrailers);  // the last chunk
      }
      return true;
    case State::kDataEnd:
      begin_line(State::kSize, kMaxChunkLine);
      return true;
    case State::kTrailerStart:
      state_ = State::kDone;  // the blank line
      return true;
    case State::kTrailer:
      state_ = State::kTrailerStart;  // the section's budget goes on
      return true;
    default:
      return fail("bad chunked framing");
  }
}

}  // namespace stampede
