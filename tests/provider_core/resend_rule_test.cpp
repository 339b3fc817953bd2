#include <doctest/doctest.h>

#include <string>

#include "upstream/resend_rule.hpp"

using namespace stampede;

TEST_CASE("a failed forward goes again only when idempotent, unsent and the first attempt") {
  struct Row {
    const char* method;
    std::size_t bytes_sent;
    int attempt;
    bool resend;
  };
  const Row rows[] = {
      // Nothing of it reached the upstream, first attempt: the idempotent methods go again.
      {"GET", 0, 1, true},
      {"HEAD", 0, 1, true},
      {"OPTIONS", 0, 1, true},
      {"TRACE", 0, 1, true},
      {"PUT", 0, 1, true},
      {"DELETE", 0, 1, true},
      // Never the others, sent or not: the upstream may act on them twice.
      {"POST", 0, 1, false},
      {"PATCH", 0, 1, false},
      {"CONNECT", 0, 1, false},
      {"PROPFIND", 0, 1, false},
      {"get", 0, 1, false},  // methods are case-sensitive
      {"", 0, 1, false},
      // A byte written may have been read: no resend.
      {"GET", 1, 1, false},
      {"PUT", 4096, 1, false},
      {"POST", 100, 1, false},
      // At most once.
      {"GET", 0, 2, false},
      {"DELETE", 0, 3, false},
  };
  for (const Row& row : rows) {
    CAPTURE(row.method);
    CAPTURE(row.bytes_sent);
    CAPTURE(row.attempt);
    CHECK(may_resend(row.method, row.bytes_sent, row.attempt) == row.resend);
  }
  CHECK(idempotent_method("PUT"));
  CHECK_FALSE(idempotent_method("POST"));
}
