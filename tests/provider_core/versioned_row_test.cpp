#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>

#include "model/versioned_row.hpp"

using namespace stampede;

TEST_CASE("a conditional write succeeds only when nothing wrote since its read") {
  VersionedRow row;
  CHECK(row.version() == 0);
  const auto a = row.version();
  const auto b = row.version();
  CHECK(row.try_write(a));
  CHECK(row.version() == 1);
  CHECK_FALSE(row.try_write(b));  // read before a's write landed
  CHECK(row.version() == 1);
  CHECK(row.try_write(row.version()));
  CHECK(row.version() == 2);
}

TEST_CASE("answer_row: reads, matching and stale writes, and writes without If-Match") {
  struct Case {
    RowOp op;
    std::optional<std::string_view> if_match;
    int status;
    std::uint64_t version_after;
  };
  // The row starts at version 3 in every case.
  const Case cases[] = {
      {RowOp::kRead, std::nullopt, 200, 3}, {RowOp::kRead, "\"1\"", 200, 3},
      {RowOp::kWrite, "\"3\"", 200, 4},     {RowOp::kWrite, " \"3\" ", 200, 4},
      {RowOp::kWrite, "\"2\"", 412, 3},     {RowOp::kWrite, "W/\"3\"", 412, 3},
      {RowOp::kWrite, "3", 412, 3},         {RowOp::kWrite, "\"3\", \"4\"", 412, 3},
      {RowOp::kWrite, "*", 200, 4},         {RowOp::kWrite, std::nullopt, 428, 3},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.if_match.value_or("(none)")));
    VersionedRow row;
    for (std::uint64_t v = 0; v < 3; ++v) REQUIRE(row.try_write(v));
    const RowAnswer a = answer_row(row, {c.op, c.if_match});
    CHECK(a.status == c.status);
    CHECK(a.version == c.version_after);
    CHECK(row.version() == c.version_after);
  }
}
