#include <doctest/doctest.h>

#include <string>

#include "etag.hpp"

using namespace stampede;

TEST_CASE("entity tags: a version quoted, and only that parses back") {
  CHECK(format_etag(0) == "\"0\"");
  CHECK(format_etag(42) == "\"42\"");
  CHECK(parse_etag("\"42\"") == 42u);
  CHECK(parse_etag(" \"7\"\r\n") == 7u);  // as a header callback hands it over
  for (const char* bad : {"", "\"\"", "42", "W/\"42\"", "\"4 2\"", "\"-1\"", "\"x\"", "\"42"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(parse_etag(bad));
  }
}

TEST_CASE("If-Match: only \"*\", whatever whitespace is around it, matches any version") {
  for (const char* any : {"*", " *", "*\t", " * \r\n"}) CHECK(etag_matches_any(any));
  for (const char* tag : {"", "**", "\"*\"", "W/*", "*, \"1\""}) CHECK_FALSE(etag_matches_any(tag));
}
