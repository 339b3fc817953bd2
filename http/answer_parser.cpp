#include "answer_parser.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "http_token.hpp"

namespace stampede {
namespace {

static_assert(AnswerParser::kMaxHead == 8 * 1024 && AnswerParser::kMaxInterim == 10,
              "the errors name the bounds");

// Every error is a phrase of static storage: the parser owns no memory.
constexpr std::string_view kHeadTooLong = "the answer's head is longer than 8 KiB";
constexpr std::string_view kHeadPastBound =
    "the answer's head is longer than the bytes passed on for this request";

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// How many of the bytes come before the first control character (a line's end among them).
std::size_t until_ctl(const char* data, std::size_t limit) {
  std::size_t n = 0;
  while (n < limit && !is_ctl(data[n])) ++n;
  return n;
}

// The elements of a comma-separated list, trimmed; RFC 9110 5.6.1 lets empty ones be.
template <class F>
void for_each_element(std::string_view list, F&& f) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    const auto element = trim_ows(list.substr(0, comma));
    if (!element.empty()) f(element);
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
}

}  // namespace

void AnswerParser::Value::assign(std::string_view s) {
  std::copy(s.begin(), s.end(), text.begin());
  size = s.size();
}

void AnswerParser::reset(bool head_request, std::size_t max_head, Fields* fields) {
  *this = AnswerParser();
  head_request_ = head_request;
  max_head_ = budget_ = std::min(max_head, kMaxHead);
  fields_ = fields;
  if (fields_) fields_->clear();
}

AnswerParser::State AnswerParser::feed(const char* data, std::size_t n, std::size_t* used,
                                       std::string* body) {
  std::size_t i = 0;
  while (i < n && state_ == State::kIncomplete) {
    if (phase_ >= Phase::kBody) {
      i += take_body(data + i, n - i, body);
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
  if (state_ == State::kComplete && i < n) bytes_past_end_ = true;
  *used = i;
  return state_;
}

AnswerParser::State AnswerParser::close() {
  if (state_ == State::kIncomplete) {
    if (phase_ == Phase::kUntilClose) {
      complete();
    } else {
      const bool began = began_;  // the close is no byte of an answer
      fail(head_done() ? "the connection closed in the middle of the answer's body"
                       : "the connection closed before the answer's head ended");
      began_ = began;
    }
  }
  return state_;
}

int AnswerParser::status() const {
  return status_;
}

std::optional<std::uint64_t> AnswerParser::content_length() const {
  if (!has_length_ || has_transfer_encoding_) return std::nullopt;
  return length_;
}

std::string_view AnswerParser::retry_after() const {
  return retry_after_.view();
}

std::optional<bool> parse_should_retry(std::string_view value) {
  value = trim_ows(value);
  if (ascii_iequals(value, "true")) return true;
  if (ascii_iequals(value, "false")) return false;
  return std::nullopt;
}

std::optional<HeaderField> split_header_line(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto value = line.substr(colon + 1);
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.remove_suffix(1);
  return HeaderField{line.substr(0, colon), trim_ows(value)};
}

// One side lowered: every name a reader asks for is spelled in lower case.
bool header_name_is(std::string_view name, std::string_view lower_name) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return name.size() == lower_name.size() &&
         std::equal(name.begin(), name.end(), lower_name.begin(),
                    [&](char x, char y) { return lower(x) == y; });
}

std::optional<bool> AnswerParser::should_retry() const {
  return should_retry_;
}

std::array<HeaderField, 3> AnswerParser::answer_headers() const {
  return {{{"retry-after", retry_after_.view()},
           {"x-should-retry", !should_retry_   ? ""
                              : *should_retry_ ? "true"
                                               : "false"},
           {"etag", etag_.view()}}};
}

std::string_view AnswerParser::etag() const {
  return etag_.view();
}

bool AnswerParser::keep_alive() const {
  return keep_alive_;
}

std::string_view AnswerParser::error() const {
  return error_;
}

std::size_t AnswerParser::take_body(const char* data, std::size_t available, std::string* body) {
  if (phase_ == Phase::kUntilClose) {
    if (body) body->append(data, available);
    return available;
  }
  const std::size_t n = body_.feed({data, available}, body, std::string::npos);
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
std::size_t AnswerParser::take_plain(const char* data, std::size_t available) {
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
  if (fields_) copy_field_bytes(data, n);
  if (line_length_ < line_start_.size())
    std::copy_n(data, std::min(n, line_start_.size() - line_length_), &line_start_[line_length_]);
  line_length_ += n;
  budget_ -= n;
  return n;
}

// A kept header's value, up to a control character: leading whitespace dropped, at most
// kMaxValue bytes kept; it stops at a byte past them that is not whitespace (trailing
// whitespace past the limit is trimmed anyway), which makes the value too long.
std::size_t AnswerParser::keep_value(const char* data, std::size_t limit) {
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

// A header line of the answer's own head, as its bytes come, for a caller that keeps every
// field: its name, and its value less the whitespace before it (end_header_line drops the
// whitespace after).
void AnswerParser::copy_field_bytes(const char* data, std::size_t n) {
  if (n == 0 || status_ < 200) return;
  if (phase_ == Phase::kHeaderName) {
    if (line_length_ == 0) fields_->emplace_back();
    fields_->back().first.append(data, n);
  } else if (phase_ == Phase::kHeaderValue) {
    std::string& value = fields_->back().second;
    while (value.empty() && n > 0 && is_space(*data)) {
      ++data;
      --n;
    }
    value.append(data, n);
  }
}

// One byte of a line. A budget, not a buffer, bounds the lines: only their first bytes and a
// kept header's value are held.
void AnswerParser::step(char c) {
  if (budget_ == 0) return fail(max_head_ == kMaxHead ? kHeadTooLong : kHeadPastBound);
  --budget_;
  if (cr_) {
    cr_ = false;
    if (c != '\n') return fail("the answer's head has a CR not followed by LF");
    return end_line();
  }
  if (c == '\r') {
    cr_ = true;
  } else if (c == '\n') {
    // RFC 9112 2.2 lets a recipient take it as a line's end; a proxy must not, as another
    // reader may not.
    fail("a line of the answer's head ends in a bare LF");
  } else {
    if (fields_ && (c != ':' || phase_ != Phase::kHeaderName)) copy_field_bytes(&c, 1);
    on_char(c);
    if (line_length_ < line_start_.size()) line_start_[line_length_] = c;
    ++line_length_;
  }
}

void AnswerParser::on_char(char c) {
  switch (phase_) {
    case Phase::kStatusLine:
      // Bytes that cannot begin "HTTP/" are no status line (HTTP/0.9, or not HTTP at all): said
      // at once, as libcurl does, not when a line end that may never come arrives.
      if (is_ctl(c) || (line_length_ < 5 && c != "HTTP/"[line_length_]))
        fail("the answer's status line is not HTTP/1.x and a three-digit status");
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

void AnswerParser::on_header_name_char(char c) {
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
    if (line_length_ == 0) return fail("the answer has a header line without a name");
    const std::string_view name(line_start_.data(), std::min(line_length_, line_start_.size()));
    field_ = Field::kOther;
    for (const auto& [kept, field] : kKept) {
      if (header_name_is(name, kept)) field_ = field;
    }
    value_.size = 0;
    phase_ = Phase::kHeaderValue;
  } else if (is_space(c)) {
    // Both are ways to smuggle a header past a reader that parses them differently.
    fail(line_length_ == 0 ? "the answer's head folds a line (obs-fold)"
                           : "the answer's head has whitespace before a colon");
  } else if (!is_tchar(c)) {
    fail("the answer has a header name with a byte no name may hold");
  }
}

void AnswerParser::on_header_value_char(char c) {
  if (is_ctl(c)) return fail("the answer has a control byte in a header value");
  if (field_ != Field::kOther && keep_value(&c, 1) == 0)
    fail("the answer has a Retry-After, ETag, x-should-retry or framing header over 256 bytes");
}

void AnswerParser::end_line() {
  switch (phase_) {
    case Phase::kStatusLine:
      end_status_line();
      break;
    case Phase::kHeaderName:
      if (line_length_ == 0) {
        end_headers();
      } else {
        fail("the answer has a header line without a colon");
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
void AnswerParser::end_status_line() {
  const std::string_view line(line_start_.data(), std::min(line_length_, line_start_.size()));
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || (line[7] != '0' && line[7] != '1') ||
      line[8] != ' ' || !is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11]) ||
      (line.size() > 12 && line[12] != ' '))
    return fail("the answer's status line is not HTTP/1.x and a three-digit status");
  began_ = true;
  status_ = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  if (status_ < 100 || status_ > 599) return fail("the answer's status is not 100-599");
  // No request asks for an Upgrade: a switch is nothing the client asked for, and the
  // connection carries something else from here on.
  if (status_ == 101) return fail("the answer switched protocols (101), which no request asked");
  http11_ = line[7] == '1';
  phase_ = Phase::kHeaderName;
}

void AnswerParser::end_header_line() {
  // An interim answer's headers say nothing about the final one's.
  if (status_ < 200) {
    phase_ = Phase::kHeaderName;
    return;
  }
  keep(field_, trim_ows(value_.view()));
  if (fields_) {
    std::string& value = fields_->back().second;
    value.resize(trim_ows(value).size());  // its start is trimmed already
  }
  phase_ = Phase::kHeaderName;
}

void AnswerParser::end_headers() {
  if (status_ < 200) {
    // A server that sends interim answers without end never gives the answer.
    if (++interims_ > kMaxInterim) return fail("more than 10 interim (1xx) answers");
    phase_ = Phase::kStatusLine;  // 100 Continue, 103 Early Hints: the answer still follows
    return;
  }
  keep_alive_ = !connection_close_ && (http11_ || connection_keep_alive_);
  if (head_request_ || status_ == 204 || status_ == 304) return complete();
  if (has_transfer_encoding_) {
    // The connection passes no other coding on (Transfer-Encoding is hop-by-hop), and chunked
    // twice, or not last, is no framing two readers agree on.
    if (chunked_codings_ != 1 || other_coding_)
      return fail("the answer's Transfer-Encoding is not chunked alone");
    // Framing another reader could take differently (RFC 9112 6.1): read this answer, but
    // send nothing more on the connection.
    if (has_length_ || !http11_) keep_alive_ = false;
    return begin_body(BodyFraming::chunked());
  }
  if (has_length_) return begin_body(BodyFraming::of_length(length_));
  keep_alive_ = false;  // only the close can end this body
  phase_ = Phase::kUntilClose;
}

void AnswerParser::keep(Field field, std::string_view value) {
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
      connection_close_ = connection_close_ || has_list_token(value, "close");
      connection_keep_alive_ = connection_keep_alive_ || has_list_token(value, "keep-alive");
      break;
    case Field::kContentLength:
      keep_content_length(value);
      break;
    case Field::kTransferEncoding:
      has_transfer_encoding_ = true;
      for_each_element(value, [this](std::string_view coding) {
        if (ascii_iequals(coding, "chunked")) {
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
void AnswerParser::keep_content_length(std::string_view list) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  bool any = false;
  for_each_element(list, [&](std::string_view digits) {
    any = true;
    std::uint64_t n = 0;
    for (const char c : digits) {
      if (!is_digit(c)) return fail("the answer's Content-Length is not a number");
      const auto d = static_cast<std::uint64_t>(c - '0');
      if (n > (kMax - d) / 10) return fail("the answer's Content-Length is past 2^64");
      n = n * 10 + d;
    }
    if (has_length_ && n != length_) return fail("the answer's Content-Length is not one number");
    has_length_ = true;
    length_ = n;
  });
  if (!any) fail("the answer's Content-Length is not a number");
}

void AnswerParser::begin_body(BodyFraming body) {
  body_ = body;
  phase_ = Phase::kBody;
  if (body_.done()) complete();  // Content-Length: 0
}

void AnswerParser::fail(std::string_view why) {
  if (state_ == State::kError) return;  // the first fault found is the one to report
  state_ = State::kError;
  began_ = true;
  error_ = why;
  keep_alive_ = false;
}

}  // namespace stampede
