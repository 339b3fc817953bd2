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
