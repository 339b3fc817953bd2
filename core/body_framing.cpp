#include "body_framing.hpp"

#include <algorithm>

#include "http_token.hpp"

namespace stampede {

BodyFraming BodyFraming::of_length(std::uint64_t length) {
  BodyFraming b;
  b.state_ = length > 0 ? State::kData : State::kDone;
  b.data_left_ = length;
  return b;
}

BodyFraming BodyFraming::chunked() {
  BodyFraming b;
  b.chunked_ = true;
  b.state_ = State::kSize;
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
      if (data_left_ == 0) state_ = chunked_ ? State::kDataCr : State::kDone;
      continue;
    }
    if (!step(input[used++])) state_ = State::kFailed;
  }
  return used;
}

bool BodyFraming::skip_line_byte(char c, State after_cr) {
  if (c == '\r') state_ = after_cr;
  return c == '\r' || c == '\t' || static_cast<unsigned char>(c) >= 0x20;
}

bool BodyFraming::step(char c) {
  switch (state_) {
    case State::kSize: {
      const int digit = hex_digit_value(c);
      if (digit >= 0) {
        // 15 hex digits: more than any body is let be, short of overflow.
        if (++size_digits_ > 15) return false;
        data_left_ = data_left_ * 16 + static_cast<std::uint64_t>(digit);
        return true;
      }
      if (size_digits_ == 0) return false;
      if (c == '\r') {
        state_ = State::kSizeLf;
        return true;
      }
      state_ = State::kExtension;
      return c == ';' || c == ' ' || c == '\t';
    }
    case State::kExtension:
      return skip_line_byte(c, State::kSizeLf);
    case State::kSizeLf:
      if (c != '\n') return false;
      size_digits_ = 0;
      state_ = data_left_ > 0 ? State::kData : State::kLineStart;
      return true;
    case State::kDataCr:
      state_ = State::kDataLf;
      return c == '\r';
    case State::kDataLf:
      state_ = State::kSize;
      return c == '\n';
    case State::kLineStart:
      state_ = c == '\r' ? State::kLastLf : State::kTrailer;
      return c == '\r' || is_tchar(c);
    case State::kTrailer:
      return skip_line_byte(c, State::kTrailerLf);
    case State::kTrailerLf:
      state_ = State::kLineStart;
      return c == '\n';
    case State::kLastLf:
      state_ = State::kDone;
      return c == '\n';
    default:
      return false;
  }
}

}  // namespace stampede
