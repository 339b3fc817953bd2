#include "upstream/answer_parser.hpp"

#include <algorithm>
#include <charconv>

#include "http_token.hpp"

namespace stampede {
namespace {

template <class T>
std::optional<T> number(std::string_view text) {
  T n{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

std::size_t AnswerParser::feed(std::string_view data, std::string& body) {
  std::size_t used = 0;
  while (used < data.size() && (state_ == State::kHead || state_ == State::kBody)) {
    const std::string_view rest = data.substr(used);
    used += state_ == State::kHead ? feed_head(rest) : feed_body(rest, body);
  }
  return used;
}

void AnswerParser::end_of_stream() {
  if (state_ == State::kBody && to_close_) {
    state_ = State::kDone;
  } else if (state_ == State::kHead || state_ == State::kBody) {
    fail(state_ == State::kHead ? "the connection closed before the answer's head"
                                : "the connection closed in the middle of the answer's body");
  }
}

std::size_t AnswerParser::feed_head(std::string_view data) {
  const std::size_t before = pending_.size();
  pending_.append(data.substr(0, std::min(data.size(), kMaxHeadBytes + 4 - before)));
  const auto end = pending_.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (pending_.size() > kMaxHeadBytes) fail("the answer's head is longer than 64 KiB");
    return pending_.size() - before;
  }
  const std::size_t used = end + 4 - before;
  const std::string head = pending_.substr(0, end);
  pending_.clear();
  if (!parse_head(head)) return used;
  if (status_ < 200 && status_ != 101) {  // an interim answer: the real one follows
    headers_.clear();
    return used;
  }
  const bool bodiless = head_request_ || status_ < 200 || status_ == 204 || status_ == 304;
  if (bodiless) {
    state_ = State::kDone;
  } else if (chunked_) {
    framing_ = BodyFraming::chunked();
    state_ = State::kBody;
  } else if (length_) {
    framing_ = BodyFraming::of_length(*length_);
    state_ = framing_.done() ? State::kDone : State::kBody;
  } else {
    to_close_ = true;
    reusable_ = false;
    state_ = State::kBody;
  }
  return used;
}

bool AnswerParser::parse_head(std::string_view head) {
  const auto line_end = head.find("\r\n");
  const std::string_view status_line = head.substr(0, line_end);
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12 || status_line[8] != ' ') {
    fail("the answer is not HTTP/1.x");
    return false;
  }
  const auto code = number<int>(status_line.substr(9, 3));
  if (!code || *code < 100) {
    fail("the answer's status is not a number");
    return false;
  }
  status_ = *code;
  bool close = status_line[7] == '0';  // HTTP/1.0 closes unless it says keep-alive
  headers_.clear();
  length_.reset();
  chunked_ = false;
  std::string_view rest = line_end == std::string_view::npos ? "" : head.substr(line_end + 2);
  while (!rest.empty()) {
    const auto next = rest.find("\r\n");
    const std::string_view field = rest.substr(0, next);
    rest = next == std::string_view::npos ? "" : rest.substr(next + 2);
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      fail("the answer has a header line without a name");
      return false;
    }
    const std::string_view name = field.substr(0, colon), value = trim_ows(field.substr(colon + 1));
    headers_.emplace_back(name, value);
    if (ascii_iequals(name, "transfer-encoding")) {
      chunked_ = has_list_token(value, "chunked");
    } else if (ascii_iequals(name, "content-length")) {
      const auto n = number<std::size_t>(value);
      if (!n || (length_ && *length_ != *n)) {
        fail("the answer's Content-Length is not one number");
        return false;
      }
      length_ = n;
    } else if (ascii_iequals(name, "connection")) {
      if (has_list_token(value, "close")) close = true;
      if (has_list_token(value, "keep-alive")) close = false;
    }
  }
  if (chunked_) length_.reset();  // RFC 9112 6.3: chunked wins
  reusable_ = !close;
  return true;
}

std::size_t AnswerParser::feed_body(std::string_view data, std::string& body) {
  if (to_close_) {
    body.append(data);
    return data.size();
  }
  const std::size_t used = framing_.feed(data, &body, std::string::npos);
  if (framing_.failed())
    fail("the answer's chunked framing is broken: " + std::string(framing_.why()));
  if (framing_.done()) state_ = State::kDone;
  return used;
}

void AnswerParser::fail(std::string why) {
  state_ = State::kBad;
  error_ = std::move(why);
  reusable_ = false;
}

}  // namespace stampede
