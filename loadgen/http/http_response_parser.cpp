#include "http/http_response_parser.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "http_token.hpp"

namespace stampede {
namespace {

static_assert(HttpResponseParser::kMaxInterim == 10, "the error names the bound");

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_ctl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}

// How many of the bytes come before the first control character (a line's end among them).
std::size_t until_ctl(const char* data, std::size_t limit) {
  std::size_t n = 0;
  while (n < limit && !is_ctl(data[n])) ++n;
  return n;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == y; });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The elements of a comma-separated list, trimmed; RFC 9110 5.6.1 lets empty ones be.
template <class F>
void for_each_element(std::string_view list, F&& f) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    const auto element = trim(list.substr(0, comma));
    if (!element.empty()) f(element);
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
}

}  // namespace

void HttpResponseParser::Value::assign(std::string_view s) {
  std::copy(s.begin(), s.end(), text.begin());
  size = s.size();
}

void HttpResponseParser::reset(bool head_request) {
  *this = HttpResponseParser();
  head_request_ = head_request;
}

HttpResponseParser::State HttpResponseParser::feed(const char* data, std::size_t n,
                                                   std::size_t* used) {
  std::size_t i = 0;
  while (i < n && state_ == State::kIncomplete) {
    if (phase_ >= Phase::kBody) {
      i += skip_body(data + i, n - i);
    } else if (const std::size_t taken = take_plain(data + i, n - i); taken > 0) {
      i += taken;
    } else if (!cr_ && budget_ >= 2 && n - i >= 2 && data[i] == '\r' && data[i + 1] == '\n') {
      // step('\r') then step('\n'), in one.
      budget_ -= 2;
      end_line();
      i += 2;
    } else {
      step(data[i++]);
    }
  }
  *used = i;
  return state_;
}

HttpResponseParser::State HttpResponseParser::close() {
  if (state_ == State::kIncomplete) {
    if (phase_ == Phase::kUntilClose) {
      complete();
    } else {
      const bool began = began_;  // the close is no byte of an answer
      fail("connection closed before the response was complete");
      began_ = began;
    }
  }
  return state_;
}

int HttpResponseParser::status() const {
  return status_;
}

std::string_view HttpResponseParser::retry_after() const {
  return retry_after_.view();
}

std::optional<bool> parse_should_retry(std::string_view value) {
  value = trim(value);
  if (iequals(value, "true")) return true;
  if (iequals(value, "false")) return false;
  return std::nullopt;
}

std::optional<HeaderField> split_header_line(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto value = line.substr(colon + 1);
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.remove_suffix(1);
  return HeaderField{line.substr(0, colon), trim(value)};
}

bool header_name_is(std::string_view name, std::string_view lower_name) {
  return iequals(name, lower_name);
}

std::optional<bool> HttpResponseParser::should_retry() const {
  return should_retry_;
}

std::array<HeaderField, 3> HttpResponseParser::answer_headers() const {
  return {{{"retry-after", retry_after_.view()},
           {"x-should-retry", !should_retry_   ? ""
                              : *should_retry_ ? "true"
                                               : "false"},
           {"etag", etag_.view()}}};
}

std::string_view HttpResponseParser::etag() const {
  return etag_.view();
}

bool HttpResponseParser::keep_alive() const {
  return keep_alive_;
}

std::string_view HttpResponseParser::error() const {
  return error_;
}

std::size_t HttpResponseParser::skip_body(const char* data, std::size_t available) {
  if (phase_ == Phase::kUntilClose) return available;
  const std::size_t n = body_.feed({data, available}, nullptr, 0);
  if (body_.failed()) {
    fail(body_.why());
  } else if (body_.done()) {
    complete();
  }
  return n;
}

// What step would do with each of these bytes, byte by byte: count them against the budget
// and the line, keep a line's first bytes and a kept header's value. It stops before any byte
// step must decide about: a line's end (CR and LF are control characters), a ':', a byte no
// line may hold, the budget's end, and the first bytes of a status line, checked for "HTTP/".
std::size_t HttpResponseParser::take_plain(const char* data, std::size_t available) {
  if (cr_) return 0;
  const std::size_t limit = std::min(available, budget_);
  std::size_t n = 0;
  switch (phase_) {
    case Phase::kStatusLine:
      if (line_length_ < 5) return 0;
      n = until_ctl(data, limit);
      break;
    case Phase::kHeaderName:
      while (n < limit && is_tchar(data[n])) ++n;
      break;
    case Phase::kHeaderValue:
      n = field_ == Field::kOther ? until_ctl(data, limit) : keep_value(data, limit);
      break;
    default:
      return 0;
  }
  if (line_length_ < line_start_.size())
    std::copy_n(data, std::min(n, line_start_.size() - line_length_), &line_start_[line_length_]);
  line_length_ += n;
  budget_ -= n;
  return n;
}

// A kept header's value, up to a control character: leading whitespace dropped, at most
// kMaxValue bytes kept; it stops at a byte past them that is not whitespace (trailing
// whitespace past the limit is trimmed anyway), which makes the value too long.
std::size_t HttpResponseParser::keep_value(const char* data, std::size_t limit) {
  std::size_t n = 0;
  for (; n < limit && !is_ctl(data[n]); ++n) {
    const char c = data[n];
    if (value_.size == 0 && is_space(c)) continue;
    if (value_.size < kMaxValue) {
      value_.text[value_.size++] = c;
    } else if (!is_space(c)) {
      break;  // step says the value is too long
    }
  }
  return n;
}

// One byte of a line. A budget, not a buffer, bounds the lines: only their first bytes and a
// kept header's value are held.
void HttpResponseParser::step(char c) {
  if (budget_ == 0) return fail("response headers longer than 16 KiB");
  --budget_;
  if (cr_) {
    cr_ = false;
    if (c != '\n') return fail("CR not followed by LF");
    return end_line();
  }
  if (c == '\r') {
    cr_ = true;
  } else if (c == '\n') {
    end_line();  // a bare LF ends a line too (RFC 9112 2.2)
  } else {
    on_char(c);
    if (line_length_ < line_start_.size()) line_start_[line_length_] = c;
    ++line_length_;
  }
}

void HttpResponseParser::on_char(char c) {
  switch (phase_) {
    case Phase::kStatusLine:
      // Bytes that cannot begin "HTTP/" are no status line (HTTP/0.9, or not HTTP at all): said
      // at once, as libcurl does, not when a line end that may never come arrives.
      if (is_ctl(c) || (line_length_ < 5 && c != "HTTP/"[line_length_])) fail("bad status line");
      break;
    case Phase::kHeaderName:
      on_header_name_char(c);
      break;
    case Phase::kHeaderValue:
      on_header_value_char(c);
      break;
    default:  // body bytes never come here
      break;
  }
}

void HttpResponseParser::on_header_name_char(char c) {
  // Every kept name is shorter than line_start_, so a longer name never matches one.
  static constexpr std::array<std::pair<std::string_view, Field>, 6> kKept{{
      {"retry-after", Field::kRetryAfter},
      {"etag", Field::kETag},
      {"x-should-retry", Field::kShouldRetry},
      {"connection", Field::kConnection},
      {"content-length", Field::kContentLength},
      {"transfer-encoding", Field::kTransferEncoding},
  }};
  if (c == ':') {
    if (line_length_ == 0) return fail("empty header name");
    const std::string_view name(line_start_.data(), std::min(line_length_, line_start_.size()));
    field_ = Field::kOther;
    for (const auto& [kept, field] : kKept) {
      if (iequals(name, kept)) field_ = field;
    }
    value_.size = 0;
    phase_ = Phase::kHeaderValue;
  } else if (is_space(c)) {
    // Both are ways to smuggle a header past a reader that parses them differently.
    fail(line_length_ == 0 ? "obsolete line folding" : "whitespace before ':' in a header");
  } else if (!is_tchar(c)) {
    fail("bad header name");
  }
}

void HttpResponseParser::on_header_value_char(char c) {
  if (is_ctl(c)) return fail("control character in a header value");
  if (field_ != Field::kOther && keep_value(&c, 1) == 0) fail("header value too long");
}

void HttpResponseParser::end_line() {
  switch (phase_) {
    case Phase::kStatusLine:
      end_status_line();
      break;
    case Phase::kHeaderName:
      if (line_length_ == 0) {
        end_headers();
      } else {
        fail("header line without ':'");
      }
      break;
    case Phase::kHeaderValue:
      end_header_line();
      break;
    default:  // body bytes are never lines
      break;
  }
  line_length_ = 0;
}

// "HTTP/1.x NNN", then the line's end or a space and a reason phrase, which may be empty.
void HttpResponseParser::end_status_line() {
  const std::string_view line(line_start_.data(), std::min(line_length_, line_start_.size()));
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || (line[7] != '0' && line[7] != '1') ||
      line[8] != ' ' || !is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11]) ||
      (line.size() > 12 && line[12] != ' '))
    return fail("bad status line");
  began_ = true;
  status_ = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  if (status_ < 100 || status_ > 599) return fail("bad status line");
  if (status_ == 101) return fail("101 Switching Protocols, which no request asked for");
  http11_ = line[7] == '1';
  phase_ = Phase::kHeaderName;
}

void HttpResponseParser::end_header_line() {
  // An interim response's headers say nothing about the final one's.
  if (status_ >= 200) keep(field_, trim(value_.view()));
  phase_ = Phase::kHeaderName;
}

void HttpResponseParser::end_headers() {
  if (status_ < 200) {
    // A server that sends interim answers without end never gives the answer.
    if (++interims_ > kMaxInterim) return fail("more than 10 interim (1xx) responses");
    phase_ = Phase::kStatusLine;  // 100 Continue, 103 Early Hints: the answer still follows
    return;
  }
  keep_alive_ = !connection_close_ && (http11_ || connection_keep_alive_);
  if (head_request_ || status_ == 204 || status_ == 304) return complete();
  if (has_transfer_encoding_) {
    if (chunked_codings_ != 1 || other_coding_) return fail("unsupported transfer coding");
    // Framing another reader could take differently (RFC 9112 6.1): read this response, but
    // send nothing more on the connection.
    if (has_length_ || !http11_) keep_alive_ = false;
    // As libcurl reads them: a bare LF ends a chunk's lines too, as it ends the head's.
    return begin_body(BodyFraming::chunked(BodyFraming::Lines::kLenient));
  }
  if (has_length_) return begin_body(BodyFraming::of_length(length_));
  keep_alive_ = false;  // only the close can end this body
  phase_ = Phase::kUntilClose;
}

void HttpResponseParser::keep(Field field, std::string_view value) {
  switch (field) {
    case Field::kRetryAfter:
      retry_after_.assign(value);
      break;
    case Field::kETag:
      etag_.assign(value);
      break;
    case Field::kShouldRetry:
      should_retry_ = parse_should_retry(value);
      break;
    case Field::kConnection:
      for_each_element(value, [this](std::string_view option) {
        connection_close_ = connection_close_ || iequals(option, "close");
        connection_keep_alive_ = connection_keep_alive_ || iequals(option, "keep-alive");
      });
      break;
    case Field::kContentLength:
      keep_content_length(value);
      break;
    case Field::kTransferEncoding:
      has_transfer_encoding_ = true;
      for_each_element(value, [this](std::string_view coding) {
        if (iequals(coding, "chunked")) {
          ++chunked_codings_;
        } else {
          other_coding_ = true;
        }
      });
      break;
    case Field::kOther:
      break;
  }
}

// Repeats of one length, as headers or as a list ("5, 5"), are one length (RFC 9112 6.3).
void HttpResponseParser::keep_content_length(std::string_view list) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  bool any = false;
  for_each_element(list, [&](std::string_view digits) {
    any = true;
    std::uint64_t n = 0;
    for (const char c : digits) {
      if (!is_digit(c)) return fail("bad Content-Length");
      const auto d = static_cast<std::uint64_t>(c - '0');
      if (n > (kMax - d) / 10) return fail("Content-Length too large");
      n = n * 10 + d;
    }
    if (has_length_ && n != length_) return fail("conflicting Content-Length");
    has_length_ = true;
    length_ = n;
  });
  if (!any) fail("bad Content-Length");
}

void HttpResponseParser::begin_body(BodyFraming body) {
  body_ = body;
  phase_ = Phase::kBody;
  if (body_.done()) complete();  // Content-Length: 0
}

void HttpResponseParser::fail(std::string_view why) {
  if (state_ == State::kError) return;  // the first fault found is the one to report
  state_ = State::kError;
  began_ = true;
  error_ = why;
  keep_alive_ = false;
}

}  // namespace stampede
