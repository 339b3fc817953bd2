#include "upstream/answer_parser.hpp"

#include <limits>

#include "http_token.hpp"

namespace stampede {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Whether s holds a byte no head line may (RFC 9110 5.5: a field value is VCHAR, obs-text, SP
// and HTAB). Every byte of a head is checked: without branches, the compiler takes them a
// vector at a time.
bool has_ctl(std::string_view s) {
  bool ctl = false;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    ctl |= (u < 0x20) & (u != '\t');
    ctl |= u == 0x7f;
  }
  return ctl;
}

// The elements of a comma-separated list (RFC 9110 5.6.1), trimmed; empty ones skipped.
template <class F>
void for_each_element(std::string_view list, F&& f) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view element = trim_ows(list.substr(0, comma));
    if (!element.empty()) f(element);
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
}

}  // namespace

std::size_t AnswerParser::feed(std::string_view data, std::string& body) {
  std::size_t used = 0;
  while (used < data.size() && (state_ == State::kHead || state_ == State::kBody)) {
    const std::string_view rest = data.substr(used);
    used += state_ == State::kHead ? feed_head(rest) : feed_body(rest, body);
  }
  if (used < data.size() && state_ == State::kDone) reusable_ = false;
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

// A line at a time, as its bytes come: a bad line is said when it ends, not when a head that
// may never end does.
std::size_t AnswerParser::feed_head(std::string_view data) {
  const auto lf = data.find('\n');
  const std::size_t take = lf == std::string_view::npos ? data.size() : lf + 1;
  if (take > head_budget_) {
    fail("the answer's head is longer than the " + std::to_string(max_head_) +
         " bytes passed on for this request");
    return take;
  }
  head_budget_ -= take;
  if (lf == std::string_view::npos) {
    pending_.append(data);
  } else if (pending_.empty()) {
    take_line(data.substr(0, take));
  } else {
    pending_.append(data.substr(0, take));
    const std::string line = std::move(pending_);
    pending_.clear();
    take_line(line);
  }
  return take;
}

void AnswerParser::take_line(std::string_view line) {
  if (!line.ends_with("\r\n")) return fail("a line of the answer's head ends in a bare LF");
  line.remove_suffix(2);
  if (!in_fields_) return take_status_line(line);
  if (line.empty()) return end_head();
  take_field(line);
}

// "HTTP/1.x NNN", then the line's end or a space and a reason phrase, which may be empty.
void AnswerParser::take_status_line(std::string_view line) {
  if (line.size() < 12 || !line.starts_with("HTTP/1.") || (line[7] != '0' && line[7] != '1') ||
      line[8] != ' ' || !is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11]) ||
      (line.size() > 12 && line[12] != ' ') || has_ctl(line))
    return fail("the answer's status line is not HTTP/1.x and a three-digit status");
  head_.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  if (head_.status < 100 || head_.status > 599) return fail("the answer's status is not 100-599");
  // No request is forwarded with an Upgrade: a switch is nothing the client asked for, and the
  // connection carries something else from here on.
  if (head_.status == 101)
    return fail("the upstream switched protocols (101), which no request asked");
  head_.http11 = line[7] == '1';
  in_fields_ = true;
}

void AnswerParser::take_field(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t')
    return fail("the answer's head folds a line (obs-fold)");
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0)
    return fail("the answer has a header line without a name");
  const std::string_view name = line.substr(0, colon);
  if (!is_http_token(name)) {
    return fail(name.back() == ' ' || name.back() == '\t'
                    ? "the answer's head has whitespace before a colon"
                    : "the answer has a header name with a byte no name may hold");
  }
  const std::string_view value = trim_ows(line.substr(colon + 1));
  if (has_ctl(value)) return fail("the answer has a control byte in a header value");
  if (ascii_iequals(name, "transfer-encoding")) {
    take_coding(value);
  } else if (ascii_iequals(name, "content-length")) {
    take_length(value);
  } else if (ascii_iequals(name, "connection")) {
    head_.close = head_.close || has_list_token(value, "close");
    head_.keep_alive = head_.keep_alive || has_list_token(value, "keep-alive");
  }
  head_.headers.emplace_back(name, value);
}

// Repeats of one length, as lines or as a list ("5, 5"), are one length (RFC 9112 6.3).
void AnswerParser::take_length(std::string_view list) {
  constexpr auto kMax = std::numeric_limits<std::size_t>::max();
  bool any = false;
  for_each_element(list, [&](std::string_view digits) {
    any = true;
    std::size_t n = 0;
    for (const char c : digits) {
      const auto d = static_cast<std::size_t>(c - '0');
      if (!is_digit(c) || n > (kMax - d) / 10)
        return fail("the answer's Content-Length is not a number");
      n = n * 10 + d;
    }
    if (head_.length && *head_.length != n)
      return fail("the answer's Content-Length is not one number");
    head_.length = n;
  });
  if (!any) fail("the answer's Content-Length is not a number");
}

void AnswerParser::take_coding(std::string_view list) {
  head_.transfer_encoding = true;
  for_each_element(list, [&](std::string_view coding) {
    if (ascii_iequals(coding, "chunked")) {
      ++head_.chunked_codings;
    } else {
      head_.other_coding = true;
    }
  });
}

void AnswerParser::end_head() {
  if (head_.status < 200) {  // an interim answer: the real one follows
    if (++interims_ > kMaxInterim)
      return fail("more than " + std::to_string(kMaxInterim) + " interim (1xx) answers");
    head_ = Head{};
    in_fields_ = false;
    return;
  }
  reusable_ = !head_.close && (head_.http11 || head_.keep_alive);
  if (head_request_ || head_.status == 204 || head_.status == 304) {
    state_ = State::kDone;
  } else {
    begin_body();
  }
}

void AnswerParser::begin_body() {
  if (head_.transfer_encoding) {
    // The connection passes no other coding on (Transfer-Encoding is hop-by-hop), and chunked
    // twice, or not last, is no framing two readers agree on.
    if (head_.chunked_codings != 1 || head_.other_coding)
      return fail("the answer's Transfer-Encoding is not chunked alone");
    // Framing another reader could take differently (RFC 9112 6.3): this answer is read by its
    // chunks, the connection carries no other.
    if (head_.length || !head_.http11) reusable_ = false;
    head_.length.reset();
    framing_ = BodyFraming::chunked();
  } else if (head_.length) {
    framing_ = BodyFraming::of_length(*head_.length);
  } else {
    to_close_ = true;
    reusable_ = false;
    state_ = State::kBody;
    return;
  }
  state_ = framing_.done() ? State::kDone : State::kBody;
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
  if (state_ == State::kBad) return;  // the first fault found is the one to say
  state_ = State::kBad;
  error_ = std::move(why);
  reusable_ = false;
}

}  // namespace stampede
