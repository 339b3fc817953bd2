#include <doctest/doctest.h>

#include <string>

#include "model/attempt_header.hpp"
#include "server/constant_time.hpp"

using stampede::constant_time_equal;
using stampede::parse_attempt;

TEST_CASE("constant_time_equal: equal only when every byte and the length match") {
  const std::string token = "Bearer s3cret-token";
  CHECK(constant_time_equal(token, token));
  CHECK(constant_time_equal("", ""));
  CHECK_FALSE(constant_time_equal(token, "Bearer s3cret-tokeN"));  // the last byte
  CHECK_FALSE(constant_time_equal(token, "bearer s3cret-token"));  // the first byte
  CHECK_FALSE(constant_time_equal(token, "Bearer s3cret"));        // a prefix
  CHECK_FALSE(constant_time_equal("Bearer s3cret", token));
  CHECK_FALSE(constant_time_equal(token, token + std::string(1, '\0')));  // NUL is a byte too
  CHECK_FALSE(constant_time_equal("", token));
  CHECK_FALSE(constant_time_equal(token, ""));
}

TEST_CASE("parse_attempt: X-Attempt is a send number from 1, anything else a first send") {
  CHECK(parse_attempt(nullptr) == 1);
  CHECK(parse_attempt("1") == 1);
  CHECK(parse_attempt("7") == 7);
  CHECK(parse_attempt("2147483647") == 2147483647);
  for (const char* bad : {"", "0", "-3", "abc", "3 ", " 3", "2147483648", "99999999999999999999",
                          "1e3", "0x10", "+2"}) {
    CAPTURE(std::string(bad));
    CHECK(parse_attempt(bad) == 1);
  }
}
