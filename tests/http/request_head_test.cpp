#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "request_head.hpp"

using namespace stampede;
using State = HeadVerdict::State;

namespace {

constexpr std::size_t kMaxHead = 4095;

HeadVerdict parse(const std::string& bytes, RequestHead& head, std::size_t max = kMaxHead) {
  return parse_request_head(bytes, max, head);
}

}  // namespace

TEST_CASE("request head: a complete head gives its line, its fields and its size") {
  RequestHead head;
  const std::string first =
      "POST /v1/messages?beta=1 HTTP/1.1\r\nHost: x\r\nX-Attempt:  2\t \r\n\r\n";
  const std::string bytes = first + "GET / HTTP/1.1\r\n";
  const HeadVerdict v = parse(bytes, head);
  REQUIRE(v.state == State::kComplete);
  CHECK(head.method == "POST");
  CHECK(head.target == "/v1/messages?beta=1");
  CHECK_FALSE(head.http_1_0);
  CHECK(head.size == first.size());  // the next request's bytes are not its
  REQUIRE(head.fields.size() == 2);
  CHECK(head.fields[1].name == "X-Attempt");
  // The leading spaces dropped, the trailing ones kept (trim_ows is the readers').
  CHECK(head.fields[1].value == "2\t ");
  REQUIRE(head.find("x-attempt"));
  CHECK(*head.find("X-ATTEMPT") == "2\t ");
  CHECK_FALSE(head.find("X-Client-Id"));
}

TEST_CASE("request head: incomplete until its blank line, empty lines before it skipped") {
  RequestHead head;
  CHECK(parse("", head).state == State::kIncomplete);
  CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\n", head).state == State::kIncomplete);
  CHECK(parse("\r\n\r\n", head).state == State::kIncomplete);
  const std::string bytes = "\r\n\r\nGET / HTTP/1.0\r\n\r\n";
  REQUIRE(parse(bytes, head).state == State::kComplete);
  CHECK(head.http_1_0);
  CHECK(head.size == bytes.size());
  CHECK(head.fields.empty());  // HTTP/1.0 needs no Host
}

TEST_CASE("request head: what is refused, and with which status") {
  struct Case {
    const char* name;
    std::string bytes;
    int status;
  };
  const std::vector<Case> cases{
      {"no version", "GET /\r\nHost: x\r\n\r\n", 400},
      {"no target", "GET  HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"two spaces", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"method not a token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"another version", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
      {"a version spelled otherwise", "GET / HTTP/1.x\r\nHost: x\r\n\r\n", 400},
      {"lowercase http", "GET / http/1.1\r\nHost: x\r\n\r\n", 400},
      {"HTTP/1.1 without Host", "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", 400},
      {"a field without a colon", "GET / HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n", 400},
      {"a space before the colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400},
      {"an empty name", "GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n", 400},
      {"a folded line", "GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n", 400},
      {"a NUL in the target", std::string("GET /\0 HTTP/1.1\r\nHost: x\r\n\r\n", 28), 400},
      {"a NUL in a value", std::string("GET / HTTP/1.1\r\nHost: x\0\r\n\r\n", 28), 400},
      {"a bare LF in the head", "GET / HTTP/1.1\nHost: x\r\n\r\n", 400},
      {"binary", "\x01\x02\x03\r\n\r\n", 400},
      {"a tab before the colon", "GET / HTTP/1.1\r\nHost\t: x\r\n\r\n", 400},
      {"a bare CR in a value", "GET / HTTP/1.1\r\nHost: x\rTransfer-Encoding: chunked\r\n\r\n",
       400},
      {"a folded line by a tab", "GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\tc\r\n\r\n", 400},
      {"a control byte in the target", "GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"DEL in the target", "GET /a\x7f HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 405},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.name));
    RequestHead head;
    const HeadVerdict v = parse(c.bytes, head);
    CHECK(v.state == State::kBad);
    CHECK(v.status == c.status);
    CHECK_FALSE(v.reason.empty());
  }
}

TEST_CASE("request head: longer than the limit is a 431, complete or not") {
  RequestHead head;
  const std::string complete = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";  // 27 bytes
  CHECK(parse(complete, head, complete.size()).state == State::kComplete);
  const HeadVerdict over = parse(complete, head, complete.size() - 1);
  CHECK(over.state == State::kBad);
  CHECK(over.status == 431);
  const std::string partial = "GET / HTTP/1.1\r\nX-Big: " + std::string(100, 'a');
  CHECK(parse(partial, head, partial.size()).state == State::kIncomplete);
  CHECK(parse(partial, head, partial.size() - 1).status == 431);
}

TEST_CASE("request head: whether the connection stays open after the answer") {
  struct Case {
    std::string head;
    bool keeps;
  };
  const std::vector<Case> cases{
      {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", true},
      {"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false},
      {"GET / HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive, CLOSE \r\n\r\n", false},
      {"GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\n\r\n", true},
      {"GET / HTTP/1.0\r\n\r\n", false},
      {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.head);
    RequestHead head;
    REQUIRE(parse(c.head, head).state == State::kComplete);
    CHECK(keeps_alive(head) == c.keeps);
  }
}

TEST_CASE("request head: the path is the target up to its query, unescaped") {
  std::string scratch;
  CHECK(request_path("/v1/messages?x=1", scratch) == "/v1/messages");
  CHECK(request_path("/%72ow", scratch) == "/row");
  CHECK(request_path("/a%2Fb?q=%41", scratch) == "/a/b");
  CHECK(request_path("/%zz", scratch) == "/%zz");  // not an escape: as it is
  CHECK(request_path("/%7", scratch) == "/%7");
  CHECK(request_path("", scratch).empty());
}

TEST_CASE("request head: the checks both servers share") {
  CHECK(check_method("GET").state == State::kComplete);
  CHECK(check_method("connect").state == State::kComplete);  // methods are case-sensitive
  CHECK(check_method("CONNECT").status == 405);
  CHECK(check_method("G(T").status == 400);
  CHECK(check_method("").status == 400);
  CHECK(is_request_target("/v1?q=%20&r=~"));
  CHECK(is_request_target("http://h/p"));
  for (const std::string bad : {"", "/a b", "/a\tb", "/a\x01", "/a\x7f", "/\xc3\xa9"}) {
    CAPTURE(bad);
    CHECK_FALSE(is_request_target(bad));
  }
  CHECK(is_field_value(""));
  CHECK(is_field_value("a b\tc \xc3\xa9"));  // obs-text is allowed
  for (const std::string& bad :
       std::vector<std::string>{"a\rb", "a\nb", std::string("a\0b", 3), "a\x01", "a\x7f"}) {
    CAPTURE(bad);
    CHECK_FALSE(is_field_value(bad));
  }
  CHECK(check_tenant_fields(0).state == State::kComplete);
  CHECK(check_tenant_fields(1).state == State::kComplete);
  CHECK(check_tenant_fields(2).status == 400);
}

TEST_CASE("request head: fields of a name are counted in any case") {
  // The head's fields view the bytes they were read from: those outlive it.
  const std::string bytes = "GET / HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\r\nx-api-key: b\r\n\r\n";
  RequestHead head;
  REQUIRE(parse(bytes, head).state == State::kComplete);
  CHECK(count_fields(head, "X-API-KEY") == 2);
  CHECK(count_fields(head, "Host") == 1);
  CHECK(count_fields(head, "Authorization") == 0);
}
