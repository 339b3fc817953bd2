#include <doctest/doctest.h>

#include <string>

#include "upstream/answer_parser.hpp"

using namespace stampede;
using State = AnswerParser::State;

namespace {

// Feeds the answer in pieces of `step` bytes, as a socket may give it.
struct Parsed {
  State state;
  std::string body;
  std::size_t used = 0;
};

Parsed parse(const std::string& answer, std::size_t step, bool head = false, bool eof = false) {
  AnswerParser p(head);
  Parsed out{State::kHead, "", 0};
  for (std::size_t at = 0;
       at < answer.size() && p.state() != State::kDone && p.state() != State::kBad; at += step) {
    out.used += p.feed(std::string_view(answer).substr(at, step), out.body);
  }
  if (eof) p.end_of_stream();
  out.state = p.state();
  return out;
}

}  // namespace

TEST_CASE("an answer's body is framed as its head says, whatever pieces it comes in") {
  struct Row {
    const char* name;
    std::string answer;
    bool head_request;
    bool eof;
    State state;
    std::string body;
  };
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nTrailer: x\r\n\r\n";
  const Row rows[] = {
      {"length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, false, State::kDone,
       "hello"},
      {"empty length", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, false, State::kDone,
       ""},
      {"chunked with extension and trailer", chunked, false, false, State::kDone, "hello world"},
      {"to the end", "HTTP/1.1 200 OK\r\n\r\nall of it", false, true, State::kDone, "all of it"},
      {"to the end, not there yet", "HTTP/1.1 200 OK\r\n\r\nsome", false, false, State::kBody,
       "some"},
      {"HEAD: the length, no body", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", true, false,
       State::kDone, ""},
      {"204", "HTTP/1.1 204 No Content\r\n\r\n", false, false, State::kDone, ""},
      {"304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", false, false, State::kDone,
       ""},
      {"100 Continue first",
       "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n"
       "Content-Length: 2\r\n\r\nok",
       false, false, State::kDone, "ok"},
      {"cut in the body", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", false, true,
       State::kBad, "short"},
      {"cut in the head", "HTTP/1.1 200 OK\r\nContent-Le", false, true, State::kBad, ""},
      {"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", false, false, State::kBad, ""},
      {"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", false,
       false, State::kBad, ""},
      {"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false,
       false, State::kBad, ""},
      {"chunk longer than its size",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", false, false,
       State::kBad, "ab"},
      // The chunks are framed as strictly as the native server frames a request's.
      {"a chunk-size line ended by a bare LF",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n", false, false,
       State::kBad, ""},
  };
  for (const auto& row : rows) {
    for (const std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{1000}}) {
      CAPTURE(row.name);
      CAPTURE(step);
      const auto got = parse(row.answer, step, row.head_request, row.eof);
      CHECK(got.state == row.state);
      CHECK(got.body == row.body);
    }
  }
}

TEST_CASE("the head: status, headers, length and whether the connection goes on") {
  AnswerParser p(false);
  std::string body;
  const std::string answer =
      "HTTP/1.1 429 Too Many Requests\r\nRetry-After:  7 \r\nContent-Length: 2\r\n"
      "Connection: close\r\n\r\n{}HTTP/1.1 200 OK";
  // An answer's end is where the parser stops: what follows is not its.
  CHECK(p.feed(answer, body) == answer.size() - 15);
  CHECK(p.state() == State::kDone);
  CHECK(p.status() == 429);
  CHECK(p.headers().at(0) == std::pair<std::string, std::string>{"Retry-After", "7"});
  CHECK(p.content_length() == 2);
  CHECK_FALSE(p.reusable());
  AnswerParser keep(false);
  keep.feed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", body);
  CHECK(keep.reusable());
  AnswerParser old(false);
  old.feed("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", body);
  CHECK_FALSE(old.reusable());
  AnswerParser to_end(false);
  to_end.feed("HTTP/1.1 200 OK\r\n\r\n", body);
  CHECK_FALSE(to_end.reusable());  // its end is the connection's
  AnswerParser huge(false);
  huge.feed("HTTP/1.1 200 OK\r\nX: " + std::string(AnswerParser::kMaxHeadBytes, 'x'), body);
  CHECK(huge.state() == State::kBad);
}

TEST_CASE("a head another reader could take differently is no answer, whatever its pieces") {
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
      {"a bare CR", "HTTP/1.1 200 OK\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n", "control"},
      {"a bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "bare LF"},
      {"a NUL", std::string("HTTP/1.1 200 OK\r\nX: \0\r\n\r\n", 24), "control"},
      {"a name with a byte no name may hold", "HTTP/1.1 200 OK\r\nX(y): a\r\n\r\n", "name"},
      {"no name", "HTTP/1.1 200 OK\r\n: a\r\n\r\n", "without a name"},
      {"no colon", "HTTP/1.1 200 OK\r\nX\r\n\r\n", "without a name"},
      {"a length not a number", "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\nx", "not a number"},
      {"a length past size_t", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
       "not a number"},
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
       "HTTP/1.1 200 OK\r\nX: " + std::string(AnswerParser::kMaxHeadBytes, 'x') + "\r\n\r\n",
       "longer than"},
      {"interim heads past the bound together", interims(10) + std::string(8000, 'x'),
       "longer than"},
  };
  for (const auto& row : rows) {
    for (const std::size_t step : {std::size_t{1}, std::size_t{7}, std::size_t{100000}}) {
      CAPTURE(row.name);
      CAPTURE(step);
      AnswerParser p(false);
      std::string body;
      for (std::size_t at = 0; at < row.answer.size() && p.state() != State::kBad; at += step)
        p.feed(std::string_view(row.answer).substr(at, step), body);
      CHECK(p.state() == State::kBad);
      CHECK(p.error().find(row.says) != std::string::npos);
      CHECK_FALSE(p.reusable());
    }
  }
}

TEST_CASE("sound heads at the edges: read, and whether the connection may carry another") {
  std::string body;
  SUBCASE("bytes past the answer's end: read as far as its end, the connection not reused") {
    AnswerParser p(false);
    const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK";
    CHECK(p.feed(answer, body) == answer.size() - 15);
    CHECK(p.state() == State::kDone);
    CHECK(body == "ok");
    CHECK_FALSE(p.reusable());
  }
  SUBCASE("chunked beside a length: read chunked, the connection not reused") {
    AnswerParser p(false);
    p.feed(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: "
        "9\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        body);
    CHECK(p.state() == State::kDone);
    CHECK(body == "ok");
    CHECK_FALSE(p.content_length());
    CHECK_FALSE(p.reusable());
  }
  SUBCASE("HTTP/1.0 chunked: read, the connection not reused") {
    AnswerParser p(false);
    p.feed(
        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        body);
    CHECK(p.state() == State::kDone);
    CHECK_FALSE(p.reusable());
  }
  SUBCASE("HTTP/1.0 with keep-alive stays") {
    AnswerParser p(false);
    p.feed("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", body);
    CHECK(p.reusable());
  }
  SUBCASE("one length repeated, as lines and as a list") {
    AnswerParser p(false);
    p.feed("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\ncontent-length: 2\r\n\r\nok", body);
    CHECK(p.state() == State::kDone);
    CHECK(p.content_length() == 2);
    CHECK(p.reusable());
  }
  SUBCASE("ten interim answers, their headers not the answer's") {
    AnswerParser p(false);
    std::string answer;
    for (int i = 0; i < 10; ++i) answer += "HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n";
    p.feed(answer + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", body);
    CHECK(p.state() == State::kDone);
    CHECK(p.status() == 200);
    CHECK(p.headers().size() == 1);
  }
  SUBCASE("a 304's and a HEAD's length kept, no body read") {
    AnswerParser not_modified(false), head(true);
    not_modified.feed("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", body);
    head.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", body);
    CHECK(not_modified.content_length() == 10);
    CHECK(head.content_length() == 10);
    CHECK(not_modified.state() == State::kDone);
    CHECK(head.state() == State::kDone);
    CHECK(body.empty());
  }
  SUBCASE("an empty reason phrase, a tab and obs-text in a value") {
    AnswerParser p(false);
    p.feed("HTTP/1.1 200\r\nX: a\tb \xe9\r\nContent-Length: 0\r\n\r\n", body);
    CHECK(p.state() == State::kDone);
    CHECK(p.headers().at(0).second == "a\tb \xe9");
  }
  SUBCASE("a bound of the caller's, under the reader's own") {
    AnswerParser p(false, 40);
    p.feed("HTTP/1.1 200 OK\r\nX: " + std::string(30, 'x') + "\r\n\r\n", body);
    CHECK(p.state() == State::kBad);
    AnswerParser fits(false, 40);
    fits.feed("HTTP/1.1 200 OK\r\nX: " + std::string(15, 'x') + "\r\n\r\n", body);
    CHECK(fits.state() == State::kBody);
  }
}
