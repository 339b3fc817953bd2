#include <doctest/doctest.h>

#include <string>

#include "constant_time.hpp"

using stampede::constant_time_equal;

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
