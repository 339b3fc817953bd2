#include <doctest/doctest.h>

#include "live/request.hpp"

using namespace stampede;

TEST_CASE("target URLs: http or https, a host and a port") {
  struct Case {
    const char* text;
    const char* host;
    int port;
    const char* target;  // the request line's
  };
  for (const Case c : {Case{"http://127.0.0.1:8080/v1/messages", "127.0.0.1", 8080, "/v1/messages"},
                       Case{"http://localhost/", "localhost", 80, "/"},
                       Case{"http://localhost", "localhost", 80, "/"},
                       Case{"https://api.example.com/v1?beta=true&x=1#frag", "api.example.com", 443,
                            "/v1?beta=true&x=1"},
                       Case{"http://[::1]:9000/x", "::1", 9000, "/x"}}) {
    CAPTURE(c.text);
    const auto u = parse_target_url(c.text);
    REQUIRE_MESSAGE(u, u.error());
    CHECK(u->host == c.host);
    CHECK(u->port == c.port);
    CHECK(u->text == c.text);
    CHECK(u->target == c.target);
  }
  for (const char* bad : {"", "localhost:8080", "ftp://example.com/", "http://", "http://:80/",
                          "http://host:99999/", "http://host:0/", "not a url"}) {
    CAPTURE(bad);
    const auto u = parse_target_url(bad);
    CHECK_FALSE(u);
    CHECK(u.error().find("--url") == 0);
  }
}

TEST_CASE("headers, methods and API keys are validated") {
  CHECK_FALSE(header_error("Authorization: Bearer abc"));
  CHECK_FALSE(header_error("X-Empty:"));
  CHECK_FALSE(header_error("Content-Type: application/json; charset=utf-8"));
  for (const char* bad :
       {"NoColon", ": value", "Bad Name: x", "X-A: line\r\nX-B: smuggled", "X-Null: a\x01"}) {
    CAPTURE(bad);
    const auto e = header_error(bad);
    REQUIRE(e);
    CHECK(e->find("--header") == 0);
  }
  CHECK_FALSE(method_error("POST"));
  CHECK_FALSE(method_error("PATCH"));
  CHECK(method_error("GE T"));
  CHECK(method_error(""));

  const auto keys = parse_api_keys("# tenants\nkey-a\n\n  key-b  \r\nkey-c");
  REQUIRE(keys);
  CHECK(*keys == std::vector<std::string>{"key-a", "key-b", "key-c"});
  CHECK_FALSE(parse_api_keys("# nothing but comments\n\n"));
  CHECK_FALSE(parse_api_keys("ok\nbad\x01key\n"));
}
