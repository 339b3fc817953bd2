#include <doctest/doctest.h>

#include "upstream_url.hpp"

using namespace stampede;

TEST_CASE("an upstream URL: scheme, host, port and prefix, or an error that says why") {
  struct Row {
    const char* text;
    const char* base;  // "" when it is refused
    const char* error;
  };
  const Row rows[] = {
      {"http://127.0.0.1:9000", "http://127.0.0.1:9000", ""},
      {"http://localhost", "http://localhost:80", ""},
      {"HTTPS://api.example.test/v1/", "https://api.example.test:443/v1", ""},
      {"https://[::1]:8443/base//", "https://[::1]:8443/base", ""},
      {"http://h:1/a%20b/c", "http://h:1/a%20b/c", ""},
      {"127.0.0.1:9000", "", "has no scheme"},
      {"ftp://h", "", "only http and https"},
      {"http://", "", "has no host"},
      {"http://:80", "", "has no host"},
      {"http://user@h", "", "has a user"},
      {"http://h:0", "", "outside 1-65535"},
      {"http://h:65536", "", "outside 1-65535"},
      {"http://h:", "", "not a number"},
      {"http://h:8x", "", "not a number"},
      {"http://[::1", "", "unclosed"},
      {"http://[zz]:1", "", "not an IPv6"},
      {"http://[::1]x", "", "after ']'"},
      {"http://h/p?q=1", "", "query or fragment"},
      {"http://h/p#f", "", "query or fragment"},
      {"http://h/a b", "", "cannot have"},
      {"http://h h", "", "cannot have"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.text);
    const auto url = parse_upstream_url(row.text);
    if (*row.base) {
      REQUIRE(url);
      CHECK(url->base() == row.base);
    } else {
      REQUIRE(!url);
      CHECK(url.error().find(row.error) != std::string::npos);
      CHECK(url.error().find("expected http://HOST[:PORT][/PREFIX]") != std::string::npos);
    }
  }
}
