#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "answer_parser.hpp"

using namespace stampede;
using AnswerState = AnswerParser::State;

// Owning no heap memory is what keeps the parser bounded whatever a server sends, and free of
// allocations at 10,000 responses a second.
static_assert(std::is_trivially_copyable_v<AnswerParser>);
static_assert(sizeof(AnswerParser) < 1024);

namespace {

constexpr std::size_t kAll = std::string::npos;

// What a parse came to. Only a complete response's fields are compared: an unfinished or
// malformed one's are whatever the parser had read so far.
struct ParseOutcome {
  AnswerState state = AnswerState::kIncomplete;
  int status = 0;
  std::string retry_after;
  std::string etag;
  std::optional<bool> should_retry;
  bool keep_alive = false;
  std::size_t used = 0;  // bytes the response took, when complete or still incomplete
  std::string error;
  bool operator==(const ParseOutcome&) const = default;
};

std::ostream& operator<<(std::ostream& out, const ParseOutcome& o) {
  return out << "{state " << static_cast<int>(o.state) << ", status " << o.status
             << ", retry_after '" << o.retry_after << "', etag '" << o.etag << "', should_retry "
             << (o.should_retry ? (*o.should_retry ? "true" : "false") : "none") << ", keep_alive "
             << o.keep_alive << ", used " << o.used << ", error '" << o.error << "'}";
}

struct Case {
  std::string name{};
  std::string raw{};
  bool head = false;   // the request was HEAD
  bool close = false;  // the server closes the connection once raw is sent
  AnswerState state = AnswerState::kComplete;
  int status = 200;
  bool keep_alive = true;
  std::string retry_after{};
  std::string etag{};
  std::optional<bool> should_retry{};
  std::size_t used = kAll;  // kAll: all of raw
  std::string error{};
};

ParseOutcome expected(const Case& c) {
  ParseOutcome o;
  o.state = c.state;
  if (c.state == AnswerState::kError) {
    o.error = c.error;
    return o;
  }
  o.used = c.used == kAll ? c.raw.size() : c.used;
  if (c.state == AnswerState::kIncomplete) return o;
  o.status = c.status;
  o.retry_after = c.retry_after;
  o.etag = c.etag;
  o.should_retry = c.should_retry;
  o.keep_alive = c.keep_alive;
  return o;
}

// Feeds raw cut at `cuts` (ascending offsets), the way a socket might deliver it.
ParseOutcome parse(const Case& c, const std::vector<std::size_t>& cuts) {
  AnswerParser p;
  p.reset(c.head);
  ParseOutcome o;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= cuts.size() && o.state == AnswerState::kIncomplete; ++i) {
    const std::size_t to = i < cuts.size() ? cuts[i] : c.raw.size();
    std::size_t used = 0;
    o.state = p.feed(c.raw.data() + from, to - from, &used);
    o.used += used;
    from = to;
  }
  if (o.state == AnswerState::kIncomplete && c.close) o.state = p.close();
  if (o.state == AnswerState::kError) {
    ParseOutcome failed;
    failed.state = AnswerState::kError;
    failed.error = p.error();
    return failed;
  }
  if (o.state == AnswerState::kIncomplete) return o;
  o.status = p.status();
  o.retry_after = p.retry_after();
  o.etag = p.etag();
  o.should_retry = p.should_retry();
  o.keep_alive = p.keep_alive();
  return o;
}

// Byte by byte, in two pieces at every point (every 97th of a long input's), and in random
// pieces.
std::vector<std::vector<std::size_t>> splits(std::size_t n) {
  std::vector<std::vector<std::size_t>> all(1);
  for (std::size_t i = 1; i < n; ++i) all[0].push_back(i);
  const std::size_t stride = n > 2048 ? 97 : 1;
  for (std::size_t i = 0; i < n; i += stride) all.push_back({i});
  all.push_back({n});
  std::mt19937 rng(7);
  for (int round = 0; round < 100; ++round) {
    all.emplace_back();
    for (std::size_t i = 0; i <= n; ++i) {
      if (rng() % 8 == 0) all.back().push_back(i);
    }
  }
  return all;
}

// Whole, then split every way splits() has: the same outcome. Only the first split to differ
// is reported; the rest would say it again.
void check(const Case& c) {
  CAPTURE(c.name);
  const ParseOutcome want = expected(c);
  CHECK(parse(c, {}) == want);
  for (const auto& cuts : splits(c.raw.size())) {
    const ParseOutcome got = parse(c, cuts);
    if (got == want) continue;
    std::string at;
    for (const std::size_t cut : cuts) at += std::to_string(cut) + " ";
    CAPTURE(at);
    CHECK(got == want);
    return;
  }
}

const std::string kPipelinedFirst = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
const std::string kPipelinedChunked =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
const std::string kEarlyHints =
    "HTTP/1.1 103 Early Hints\r\nLink: </app.css>; rel=preload\r\nRetry-After: 99\r\n"
    "ETag: \"hint\"\r\nConnection: close\r\n\r\n";

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<Case> cases() {
  return {
      {.name = "Content-Length body",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello"},
      {.name = "Content-Length 0", .raw = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"},
      {.name = "no reason phrase", .raw = "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n"},
      {.name = "empty reason phrase", .raw = "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n"},
      {.name = "bare LF line ends: another reader may not take them",
       .raw = "HTTP/1.1 404 Not Found\nContent-Length: 2\n\nno",
       .state = AnswerState::kError,
       .error = "a line of the answer's head ends in a bare LF"},
      {.name = "repeated equal Content-Length",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\ncontent-length:3\r\n\r\nabc"},
      {.name = "chunked with extensions and trailers",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n5;name=value\r\nhello\r\n"
              "A ; x=\"y\"\r\n0123456789\r\n0;last\r\nExpires: never\r\nX-Sum: 1\r\n\r\n"},
      {.name = "chunk lines ended by a bare LF, framed as strictly as a request's",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x\nhello\n0\n\n",
       .state = AnswerState::kError,
       .error = "LF without CR"},
      {.name = "a control character in a chunk extension",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;a\x01\r\nok\r\n0\r\n\r\n",
       .state = AnswerState::kError,
       .error = "bad chunk extension"},
      {.name = "a control character in a trailer",
       .raw =
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX: \x02\r\n\r\n",
       .state = AnswerState::kError,
       .error = "bad trailer field"},
      {.name = "chunked takes precedence over Content-Length, then the connection closes",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n"
              "3\r\nabc\r\n0\r\n\r\n",
       .keep_alive = false},
      {.name = "chunked in HTTP/1.0, even with keep-alive: read, then the connection closes",
       .raw = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
              "1\r\nx\r\n0\r\n\r\n",
       .keep_alive = false},
      {.name = "a body to the close",
       .raw = "HTTP/1.1 200 OK\r\nETag: W/\"v1\"\r\n\r\nall of this",
       .close = true,
       .keep_alive = false,
       .etag = "W/\"v1\""},
      {.name = "a body to the close, still arriving",
       .raw = "HTTP/1.1 200 OK\r\n\r\nsome",
       .state = AnswerState::kIncomplete},
      {.name = "HEAD with Content-Length",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nETag:  \"abc\" \r\n\r\n",
       .head = true,
       .etag = "\"abc\""},
      {.name = "HEAD with chunked",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
       .head = true},
      {.name = "204", .raw = "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n", .status = 204},
      {.name = "304",
       .raw = "HTTP/1.1 304 Not Modified\r\nETag: \"v2\"\r\nTransfer-Encoding: chunked\r\n\r\n",
       .status = 304,
       .etag = "\"v2\""},
      {.name = "100 Continue, then 429 with Retry-After",
       .raw = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\n"
              "x-should-retry: FALSE\r\nContent-Length: 0\r\n\r\n",
       .status = 429,
       .retry_after = "7",
       .should_retry = false},
      {.name = "103 then 200: the hints' headers are not the answer's",
       .raw = kEarlyHints + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
      {.name = "HTTP/1.0 closes by default",
       .raw = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
       .keep_alive = false},
      {.name = "HTTP/1.0 with keep-alive",
       .raw = "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok"},
      {.name = "Connection: close in a list",
       .raw = "HTTP/1.1 503 Busy\r\nConnection: upgrade ,CLOSE\r\nContent-Length: 0\r\n\r\n",
       .status = 503,
       .keep_alive = false},
      {.name = "Retry-After as an HTTP-date, verbatim",
       .raw = "HTTP/1.1 503 Busy\r\nRetry-After: \t Wed, 21 Oct 2015 07:28:00 GMT  \r\n"
              "Content-Length: 0\r\n\r\n",
       .status = 503,
       .retry_after = "Wed, 21 Oct 2015 07:28:00 GMT"},
      // RFC 9110 5.5: the whitespace around a value is not part of it.
      {.name = "Retry-After with a trailing space",
       .raw = "HTTP/1.1 429 Slow\r\nRetry-After: 5 \r\nContent-Length: 0\r\n\r\n",
       .status = 429,
       .retry_after = "5"},
      {.name = "Retry-After between tabs",
       .raw = "HTTP/1.1 429 Slow\r\nRetry-After:\t5\t\r\nContent-Length: 0\r\n\r\n",
       .status = 429,
       .retry_after = "5"},
      {.name = "an ETag between spaces and tabs",
       .raw = "HTTP/1.1 200 OK\r\nETag:  \t\"7\" \t \r\nContent-Length: 0\r\n\r\n",
       .etag = "\"7\""},
      {.name = "ten interim answers, then the answer",
       .raw = repeat("HTTP/1.1 100 Continue\r\n\r\n", 10) +
              "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"},
      {.name = "x-should-retry: true",
       .raw = "HTTP/1.1 409 Conflict\r\nX-Should-Retry: true\r\nContent-Length: 0\r\n\r\n",
       .status = 409,
       .should_retry = true},
      {.name = "x-should-retry: neither true nor false says nothing",
       .raw = "HTTP/1.1 429 Slow\r\nx-should-retry: falsey\r\nContent-Length: 0\r\n\r\n",
       .status = 429},
      {.name = "an ETag of 256 bytes, and trailing spaces past them",
       .raw = "HTTP/1.1 200 OK\r\nETag: " + std::string(256, 'e') + "    \r\n" +
              "Content-Length: 0\r\n\r\n",
       .etag = std::string(256, 'e')},
      {.name = "pipelined bytes after a Content-Length body",
       .raw = kPipelinedFirst + "HTTP/1.1 200 OK\r\n",
       .used = kPipelinedFirst.size()},
      {.name = "pipelined bytes after a chunked body",
       .raw = kPipelinedChunked + "HTTP/1.1 204 No Content\r\n\r\n",
       .used = kPipelinedChunked.size()},
      {.name = "a Content-Length body still arriving",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
       .state = AnswerState::kIncomplete},

      {.name = "the answer's Content-Length is not one number",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
       .state = AnswerState::kError,
       .error = "the answer's Content-Length is not one number"},
      {.name = "conflicting Content-Length in a list",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 5, 50\r\n\r\nhello",
       .state = AnswerState::kError,
       .error = "the answer's Content-Length is not one number"},
      {.name = "a sign in Content-Length",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello",
       .state = AnswerState::kError,
       .error = "the answer's Content-Length is not a number"},
      {.name = "an empty Content-Length",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's Content-Length is not a number"},
      {.name = "Content-Length past 2^64",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's Content-Length is past 2^64"},
      {.name = "a chunk size that is not hex",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
       .state = AnswerState::kError,
       .error = "bad chunk size"},
      {.name = "an empty chunk size",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n;ext\r\n",
       .state = AnswerState::kError,
       .error = "bad chunk size"},
      {.name = "a chunk size of 16 hex digits",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000001\r\n",
       .state = AnswerState::kError,
       .error = "chunk size longer than 15 hex digits"},
      {.name = "chunk data longer than its size",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
       .state = AnswerState::kError,
       .error = "chunk data longer than its size"},
      {.name = "a chunk's CR without its LF",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r0\r\n\r\n",
       .state = AnswerState::kError,
       .error = "CR not followed by LF"},
      {.name = "a transfer coding other than chunked",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's Transfer-Encoding is not chunked alone"},
      {.name = "chunked twice",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's Transfer-Encoding is not chunked alone"},
      {.name = "a folded header",
       .raw = "HTTP/1.1 200 OK\r\nX-Long: one\r\n two\r\nContent-Length: 0\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's head folds a line (obs-fold)"},
      {.name = "a header line without a colon",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer has a header line without a colon"},
      {.name = "whitespace before the colon",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's head has whitespace before a colon"},
      {.name = "an empty header name",
       .raw = "HTTP/1.1 200 OK\r\n: 0\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer has a header line without a name"},
      {.name = "a control character in a value",
       .raw = std::string("HTTP/1.1 200 OK\r\nX-A: a\0b\r\n\r\n", 29),
       .state = AnswerState::kError,
       .error = "the answer has a control byte in a header value"},
      {.name = "a CR alone",
       .raw = "HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's head has a CR not followed by LF"},
      {.name = "an ETag over 256 bytes",
       .raw = "HTTP/1.1 200 OK\r\nETag: " + std::string(257, 'e') + "\r\n\r\n",
       .state = AnswerState::kError,
       .error =
           "the answer has a Retry-After, ETag, x-should-retry or framing header over 256 bytes"},
      {.name = "HTTP/2",
       .raw = "HTTP/2 200 OK\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's status line is not HTTP/1.x and a three-digit status"},
      {.name = "HTTP/1.2",
       .raw = "HTTP/1.2 200 OK\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's status line is not HTTP/1.x and a three-digit status"},
      {.name = "lowercase protocol",
       .raw = "http/1.1 200 OK\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's status line is not HTTP/1.x and a three-digit status"},
      {.name = "a two-digit status",
       .raw = "HTTP/1.1 20 OK\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's status line is not HTTP/1.x and a three-digit status"},
      {.name = "a status glued to its reason",
       .raw = "HTTP/1.1 200OK\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's status line is not HTTP/1.x and a three-digit status"},
      {.name = "status 600",
       .raw = "HTTP/1.1 600 Odd\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's status is not 100-599"},
      {.name = "status 099",
       .raw = "HTTP/1.1 099 Odd\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer's status is not 100-599"},
      {.name = "101 Switching Protocols",
       .raw = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
       .state = AnswerState::kError,
       .error = "the answer switched protocols (101), which no request asked"},
      {.name = "closed mid-status-line",
       .raw = "HTTP/1.1 2",
       .close = true,
       .state = AnswerState::kError,
       .error = "the connection closed before the answer's head ended"},
      {.name = "closed mid-headers",
       .raw = "HTTP/1.1 200 OK\r\nContent-Le",
       .close = true,
       .state = AnswerState::kError,
       .error = "the connection closed before the answer's head ended"},
      {.name = "closed mid-body",
       .raw = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
       .close = true,
       .state = AnswerState::kError,
       .error = "the connection closed in the middle of the answer's body"},
      {.name = "closed mid-chunk",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
       .close = true,
       .state = AnswerState::kError,
       .error = "the connection closed in the middle of the answer's body"},
      {.name = "closed among trailers",
       .raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Sum: 1\r\n",
       .close = true,
       .state = AnswerState::kError,
       .error = "the connection closed in the middle of the answer's body"},
      {.name = "eleven interim answers",
       .raw = repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 11) + "HTTP/1.1 200 OK\r\n\r\n",
       .state = AnswerState::kError,
       .error = "more than 10 interim (1xx) answers"},
      {.name = "HTTP/0.9: no status line, failed at its first byte",
       .raw = "h",
       .state = AnswerState::kError,
       .error = "the answer's status line is not HTTP/1.x and a three-digit status"},
      {.name = "HTTP/0.9 after an interim answer",
       .raw = "HTTP/1.1 100 Continue\r\n\r\nhello\n",
       .state = AnswerState::kError,
       .error = "the answer's status line is not HTTP/1.x and a three-digit status"},
      {.name = "closed before anything arrived",
       .raw = "",
       .close = true,
       .state = AnswerState::kError,
       .error = "the connection closed before the answer's head ended"},
  };
}

// A head of exactly `size` bytes: one padding header makes up the difference.
std::string head_of(std::size_t size) {
  const std::string start = "HTTP/1.1 200 OK\r\nX-Pad: ";
  const std::string end = "\r\nContent-Length: 0\r\n\r\n";
  return start + std::string(size - start.size() - end.size(), 'p') + end;
}

}  // namespace

TEST_CASE("answer parser: every case alike however its bytes are split") {
  for (const Case& c : cases()) check(c);
}

TEST_CASE("answer parser: a head of 8 KiB is read, one byte more is an error") {
  check({.name = "8 KiB", .raw = head_of(8 * 1024)});
  check({.name = "8 KiB + 1",
         .raw = head_of(8 * 1024 + 1),
         .state = AnswerState::kError,
         .error = "the answer's head is longer than 8 KiB"});
  check({.name = "interim heads count too",
         .raw = "HTTP/1.1 100 Continue\r\n\r\n" + head_of(8 * 1024 - 24),
         .state = AnswerState::kError,
         .error = "the answer's head is longer than 8 KiB"});
}

TEST_CASE("answer parser: an answer began once a status line came, or bytes none starts with") {
  struct Row {
    std::string raw;
    bool began;
  };
  for (const Row& row : {Row{"", false}, Row{"HTTP/1.1 20", false}, Row{"HTTP/1.1 200 OK", false},
                         Row{"HTTP/1.1 200 OK\r\n", true}, Row{"HTTP/1.1 200 OK\r\nX-A: b", true},
                         Row{"HTTP/1.1 20 OK\r\n", true}, Row{"hello", true}}) {
    CAPTURE(row.raw);
    AnswerParser p;
    p.reset(false);
    std::size_t used = 0;
    p.feed(row.raw.data(), row.raw.size(), &used);
    p.close();
    CHECK(p.answer_began() == row.began);
  }
}

TEST_CASE(
    "split_header_line: a header line's name, and its value without the whitespace around it") {
  struct Row {
    std::string line;
    std::optional<std::string> value;
  };
  for (const Row& row :
       {Row{"Retry-After: 5 \r\n", "5"}, Row{"Retry-After:\t5\t\r\n", "5"},
        Row{"retry-after:5", "5"}, Row{"RETRY-AFTER:  \t \r\n", ""},
        Row{"Retry-After: Wed, 21 Oct 2015 07:28:00 GMT \n", "Wed, 21 Oct 2015 07:28:00 GMT"},
        Row{"Retry-Afterx: 5\r\n", std::nullopt}, Row{"X-Retry-After: 5\r\n", std::nullopt},
        Row{"Retry-After 5\r\n", std::nullopt}, Row{"Retry-After", std::nullopt}}) {
    CAPTURE(row.line);
    const auto field = split_header_line(row.line);
    const bool named = field && header_name_is(field->name, "retry-after");
    CHECK(named == row.value.has_value());
    if (named && row.value) CHECK(std::string(field->value) == *row.value);
  }
}

TEST_CASE("answer parser: an endless header line fails at 8 KiB and holds none of it") {
  AnswerParser p;
  p.reset(false);
  const std::string start = "HTTP/1.1 200 OK\r\nX-Big: ";
  std::size_t used = 0;
  REQUIRE(p.feed(start.data(), start.size(), &used) == AnswerState::kIncomplete);
  const std::string piece(4096, 'x');
  std::size_t fed = start.size();
  AnswerState state = AnswerState::kIncomplete;
  while (state == AnswerState::kIncomplete && fed < (1u << 20)) {
    state = p.feed(piece.data(), piece.size(), &used);
    fed += used;
  }
  CHECK(state == AnswerState::kError);
  CHECK(p.error() == "the answer's head is longer than 8 KiB");
  CHECK(fed == 8 * 1024 + 1);  // the byte past the limit is the one that failed
  CHECK_FALSE(p.keep_alive());
}

TEST_CASE("answer parser: an endless chunk extension fails at 4 KiB") {
  AnswerParser p;
  p.reset(false);
  const std::string start = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;";
  std::size_t used = 0;
  REQUIRE(p.feed(start.data(), start.size(), &used) == AnswerState::kIncomplete);
  const std::string piece(1000, 'x');
  AnswerState state = AnswerState::kIncomplete;
  for (int i = 0; i < 10 && state == AnswerState::kIncomplete; ++i) {
    state = p.feed(piece.data(), piece.size(), &used);
  }
  CHECK(state == AnswerState::kError);
  CHECK(p.error() == "chunk line longer than 4 KiB");
}

TEST_CASE("answer parser: a body of any size is skipped, not kept") {
  AnswerParser p;
  p.reset(false);
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\n";  // 1 TiB
  std::size_t used = 0;
  REQUIRE(p.feed(head.data(), head.size(), &used) == AnswerState::kIncomplete);
  // The same bytes again and again stand for a terabyte: skipping is O(1) a call.
  const std::string piece(1 << 20, 'b');
  for (int i = 0; i < (1 << 20) - 1; ++i) {
    REQUIRE(p.feed(piece.data(), piece.size(), &used) == AnswerState::kIncomplete);
  }
  CHECK(p.feed(piece.data(), piece.size(), &used) == AnswerState::kComplete);
  CHECK(used == piece.size());
  CHECK(p.keep_alive());
}

TEST_CASE("answer parser: reset() readies the object for the next response") {
  const std::string stream =
      "HTTP/1.1 200 OK\r\nETag: \"one\"\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n0\r\n\r\n"
      "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nx-should-retry: false\r\n"
      "Content-Length: 4\r\n\r\nslow"
      "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"     // answers a HEAD: no body
      "HTTP/1.1 500 Oops\r\nConnection: close\r\n\r\n";  // to the close
  struct Want {
    int status;
    std::string etag, retry_after;
    std::optional<bool> should_retry;
    bool keep_alive;
  };
  const std::vector<Want> wants{{200, "\"one\"", "", std::nullopt, true},
                                {429, "", "3", false, true},
                                {200, "", "", std::nullopt, true},
                                {500, "", "", std::nullopt, false}};
  // Byte by byte, then in one piece: each response ends where it should either way.
  for (const std::size_t piece : {std::size_t{1}, stream.size()}) {
    CAPTURE(piece);
    AnswerParser p;
    std::size_t at = 0;
    for (std::size_t i = 0; i < wants.size(); ++i) {
      CAPTURE(i);
      p.reset(i == 2);
      AnswerState state = AnswerState::kIncomplete;
      while (state == AnswerState::kIncomplete && at < stream.size()) {
        std::size_t used = 0;
        state = p.feed(stream.data() + at, std::min(piece, stream.size() - at), &used);
        at += used;
      }
      if (state == AnswerState::kIncomplete) state = p.close();
      REQUIRE(state == AnswerState::kComplete);
      CHECK(p.status() == wants[i].status);
      CHECK(p.etag() == wants[i].etag);
      CHECK(p.retry_after() == wants[i].retry_after);
      CHECK(p.should_retry() == wants[i].should_retry);
      CHECK(p.keep_alive() == wants[i].keep_alive);
      CHECK(p.error().empty());
    }
    CHECK(at == stream.size());
  }
}

TEST_CASE("answer parser: close() after a complete response changes nothing") {
  AnswerParser p;
  p.reset(false);
  const std::string raw = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  std::size_t used = 0;
  REQUIRE(p.feed(raw.data(), raw.size(), &used) == AnswerState::kComplete);
  CHECK(p.close() == AnswerState::kComplete);
  CHECK(p.error().empty());
}

TEST_CASE("answer parser: the kept headers as name/value pairs, for the one reader") {
  const std::string raw =
      "HTTP/1.1 429 Too Many Requests\r\nRetry-After:  3 \r\nx-should-retry: TRUE\r\n"
      "ETag: \"7\"\r\nContent-Length: 0\r\n\r\n";
  AnswerParser p;
  p.reset(false);
  std::size_t used = 0;
  REQUIRE(p.feed(raw.data(), raw.size(), &used) == AnswerState::kComplete);
  const auto h = p.answer_headers();
  CHECK(h[0].name == "retry-after");
  CHECK(h[0].value == "3");
  CHECK(h[1].name == "x-should-retry");
  CHECK(h[1].value == "true");
  CHECK(h[2].name == "etag");
  CHECK(h[2].value == "\"7\"");
  p.reset(false);
  for (const auto& field : p.answer_headers()) CHECK(field.value.empty());  // none: absent
}

// Proxy mode's way to read an answer: every header field and the body kept, the answer fed in
// pieces of `step` bytes, as a socket may give it.
namespace {

struct Kept {
  AnswerState state = AnswerState::kIncomplete;
  bool head_done = false;
  std::string body;
  AnswerParser::Fields fields;
  std::size_t used = 0;
};

Kept read_kept(const std::string& answer, std::size_t step, bool head = false, bool eof = false,
               std::size_t max_head = AnswerParser::kMaxHead) {
  AnswerParser p;
  Kept out;
  p.reset(head, max_head, &out.fields);
  for (std::size_t at = 0; at < answer.size() && out.state == AnswerState::kIncomplete;
       at += step) {
    std::size_t used = 0;
    out.state = p.feed(answer.data() + at, std::min(step, answer.size() - at), &used, &out.body);
    out.used += used;
  }
  if (eof) out.state = p.close();
  out.head_done = p.head_done();
  return out;
}

}  // namespace

TEST_CASE("answer parser: a kept body is framed as its head says, whatever pieces it comes in") {
  struct Row {
    const char* name;
    std::string answer;
    bool head_request;
    bool eof;
    AnswerState state;
    bool head_done;
    std::string body;
  };
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nTrailer: x\r\n\r\n";
  const Row rows[] = {
      {"length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, false,
       AnswerState::kComplete, true, "hello"},
      {"empty length", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, false,
       AnswerState::kComplete, true, ""},
      {"chunked with extension and trailer", chunked, false, false, AnswerState::kComplete, true,
       "hello world"},
      {"to the end", "HTTP/1.1 200 OK\r\n\r\nall of it", false, true, AnswerState::kComplete, true,
       "all of it"},
      {"to the end, not there yet", "HTTP/1.1 200 OK\r\n\r\nsome", false, false,
       AnswerState::kIncomplete, true, "some"},
      {"HEAD: the length, no body", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", true, false,
       AnswerState::kComplete, true, ""},
      {"204", "HTTP/1.1 204 No Content\r\n\r\n", false, false, AnswerState::kComplete, true, ""},
      {"304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", false, false,
       AnswerState::kComplete, true, ""},
      {"100 Continue first",
       "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n"
       "Content-Length: 2\r\n\r\nok",
       false, false, AnswerState::kComplete, true, "ok"},
      {"cut in the body", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", false, true,
       AnswerState::kError, true, "short"},
      {"cut in the head", "HTTP/1.1 200 OK\r\nContent-Le", false, true, AnswerState::kError, false,
       ""},
      {"head not whole yet", "HTTP/1.1 200 OK\r\nContent-Le", false, false,
       AnswerState::kIncomplete, false, ""},
      {"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", false, false, AnswerState::kError, false, ""},
      {"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", false,
       false, AnswerState::kError, false, ""},
      {"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false,
       false, AnswerState::kError, true, ""},
      {"chunk longer than its size",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", false, false,
       AnswerState::kError, true, "ab"},
      // The chunks are framed as strictly as the native server frames a request's.
      {"a chunk-size line ended by a bare LF",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n", false, false,
       AnswerState::kError, true, ""},
  };
  for (const auto& row : rows) {
    for (const std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{1000}}) {
      CAPTURE(row.name);
      CAPTURE(step);
      const auto got = read_kept(row.answer, step, row.head_request, row.eof);
      CHECK(got.state == row.state);
      CHECK(got.head_done == row.head_done);
      CHECK(got.body == row.body);
    }
  }
}

TEST_CASE("answer parser: every header field, the length, and whether the connection goes on") {
  AnswerParser p;
  AnswerParser::Fields fields;
  std::string body;
  std::size_t used = 0;
  p.reset(false, AnswerParser::kMaxHead, &fields);
  const std::string answer =
      "HTTP/1.1 429 Too Many Requests\r\nRetry-After:  7 \r\nX-Long-Header-Name-Past-20: a:b\r\n"
      "Content-Length: 2\r\nConnection: close\r\n\r\n{}HTTP/1.1 200 OK";
  // An answer's end is where the parser stops: what follows is not its.
  CHECK(p.feed(answer.data(), answer.size(), &used, &body) == AnswerState::kComplete);
  CHECK(used == answer.size() - 15);
  CHECK(p.status() == 429);
  using Field = std::pair<std::string, std::string>;
  CHECK(fields == AnswerParser::Fields{Field{"Retry-After", "7"},
                                       Field{"X-Long-Header-Name-Past-20", "a:b"},
                                       Field{"Content-Length", "2"}, Field{"Connection", "close"}});
  CHECK(p.content_length() == 2u);
  CHECK_FALSE(p.reusable());
  const auto reusable = [](const std::string& raw) {
    AnswerParser q;
    std::size_t n = 0;
    q.feed(raw.data(), raw.size(), &n);
    return q.reusable();
  };
  CHECK(reusable("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
  CHECK_FALSE(reusable("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
  CHECK_FALSE(reusable("HTTP/1.1 200 OK\r\n\r\n"));  // its end is the connection's
  CHECK(read_kept("HTTP/1.1 200 OK\r\nX: " + std::string(AnswerParser::kMaxHead, 'x'), 100000)
            .state == AnswerState::kError);
  // reset() forgets the fields of the answer before.
  p.reset(false, AnswerParser::kMaxHead, &fields);
  CHECK(fields.empty());
}

TEST_CASE("answer parser: a head another reader could take differently is no answer") {
  const auto interims = [](int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n";
    return out;
  };
  struct Row {
    std::string name;
    std::string answer;
    std::string says;  // in error()
  };
  const Row rows[] = {
      {"HTTP/1.2", "HTTP/1.2 200 OK\r\n\r\n", "status line"},
      {"HTTP/2.0", "HTTP/2.0 200 OK\r\n\r\n", "status line"},
      {"a four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", "status line"},
      {"a two-digit status", "HTTP/1.1 20 OK\r\n\r\n", "status line"},
      {"no space after the status", "HTTP/1.1 200OK\r\n\r\n", "status line"},
      {"a status below 100", "HTTP/1.1 099 OK\r\n\r\n", "100-599"},
      {"a status above 599", "HTTP/1.1 600 OK\r\n\r\n", "100-599"},
      {"a control byte in the reason", "HTTP/1.1 200 O\x01K\r\n\r\n", "status line"},
      {"101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", "switched protocols"},
      {"whitespace before a colon", "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx", "colon"},
      {"obs-fold", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", "obs-fold"},
      {"a bare CR", "HTTP/1.1 200 OK\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n", "CR"},
      {"a bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "bare LF"},
      {"a NUL", std::string("HTTP/1.1 200 OK\r\nX: \0\r\n\r\n", 24), "control"},
      {"a name with a byte no name may hold", "HTTP/1.1 200 OK\r\nX(y): a\r\n\r\n", "name"},
      {"no name", "HTTP/1.1 200 OK\r\n: a\r\n\r\n", "without a name"},
      {"no colon", "HTTP/1.1 200 OK\r\nX\r\n\r\n", "without a colon"},
      {"a length not a number", "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\nx", "not a number"},
      {"a length past 2^64", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
       "past 2^64"},
      {"an empty length", "HTTP/1.1 200 OK\r\nContent-Length: ,\r\n\r\n", "not a number"},
      {"two lengths in a list", "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nx", "not one"},
      {"chunked then identity",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n",
       "chunked alone"},
      {"chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
       "chunked alone"},
      {"gzip, chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
       "chunked alone"},
      {"eleven interim answers", interims(11) + "HTTP/1.1 200 OK\r\n\r\n", "interim"},
      {"a head past the bound",
       "HTTP/1.1 200 OK\r\nX: " + std::string(AnswerParser::kMaxHead, 'x') + "\r\n\r\n",
       "longer than 8 KiB"},
      {"interim heads past the bound together",
       interims(10) + "HTTP/1.1 200 OK\r\nX: " + std::string(8000, 'x'), "longer than 8 KiB"},
      {"an ETag past 256 bytes", "HTTP/1.1 200 OK\r\nETag: " + std::string(300, 'e') + "\r\n\r\n",
       "over 256 bytes"},
  };
  for (const auto& row : rows) {
    for (const std::size_t step : {std::size_t{1}, std::size_t{7}, std::size_t{100000}}) {
      CAPTURE(row.name);
      CAPTURE(step);
      AnswerParser p;
      AnswerParser::Fields fields;
      p.reset(false, AnswerParser::kMaxHead, &fields);
      std::string body;
      AnswerState state = AnswerState::kIncomplete;
      for (std::size_t at = 0; at < row.answer.size() && state == AnswerState::kIncomplete;
           at += step) {
        std::size_t used = 0;
        state =
            p.feed(row.answer.data() + at, std::min(step, row.answer.size() - at), &used, &body);
      }
      CHECK(state == AnswerState::kError);
      CHECK(std::string(p.error()).find(row.says) != std::string::npos);
      CHECK_FALSE(p.reusable());
    }
  }
}

TEST_CASE("answer parser: sound heads at the edges, and whether the connection may carry another") {
  const auto read = [](const std::string& raw, AnswerParser& p, std::string& body) {
    std::size_t used = 0;
    return p.feed(raw.data(), raw.size(), &used, &body);
  };
  std::string body;
  SUBCASE("bytes past the answer's end: read as far as its end, the connection not reused") {
    AnswerParser p;
    CHECK(read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK", p, body) ==
          AnswerState::kComplete);
    CHECK(body == "ok");
    CHECK(p.keep_alive());  // what the head says
    CHECK_FALSE(p.reusable());
  }
  SUBCASE("chunked beside a length: read chunked, the connection not reused") {
    AnswerParser p;
    read(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: "
        "9\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        p, body);
    CHECK(body == "ok");
    CHECK_FALSE(p.content_length());
    CHECK_FALSE(p.reusable());
  }
  SUBCASE("HTTP/1.0 with keep-alive stays") {
    AnswerParser p;
    read("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", p, body);
    CHECK(p.reusable());
  }
  SUBCASE("ten interim answers, their headers not the answer's") {
    AnswerParser p;
    AnswerParser::Fields fields;
    p.reset(false, AnswerParser::kMaxHead, &fields);
    std::string answer;
    for (int i = 0; i < 10; ++i) answer += "HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n";
    CHECK(read(answer + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", p, body) ==
          AnswerState::kComplete);
    CHECK(p.status() == 200);
    CHECK(fields.size() == 1);
  }
  SUBCASE("a 304's and a HEAD's length kept, no body read") {
    AnswerParser not_modified, head;
    head.reset(true);
    CHECK(read("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", not_modified, body) ==
          AnswerState::kComplete);
    CHECK(read("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", head, body) ==
          AnswerState::kComplete);
    CHECK(not_modified.content_length() == 10u);
    CHECK(head.content_length() == 10u);
    CHECK(body.empty());
  }
  SUBCASE("an empty reason phrase, a tab and obs-text in a value") {
    AnswerParser p;
    AnswerParser::Fields fields;
    p.reset(false, AnswerParser::kMaxHead, &fields);
    CHECK(read("HTTP/1.1 200\r\nX: a\tb \xe9\r\nContent-Length: 0\r\n\r\n", p, body) ==
          AnswerState::kComplete);
    CHECK(fields.at(0).second == "a\tb \xe9");
  }
  SUBCASE("a bound of the caller's, under the reader's own") {
    CHECK(read_kept("HTTP/1.1 200 OK\r\nX: " + std::string(30, 'x') + "\r\n\r\n", 1000, false,
                    false, 40)
              .state == AnswerState::kError);
    const Kept fits = read_kept("HTTP/1.1 200 OK\r\nX: " + std::string(15, 'x') + "\r\n\r\n", 1000,
                                false, false, 40);
    CHECK(fits.state == AnswerState::kIncomplete);
    CHECK(fits.head_done);
  }
}
