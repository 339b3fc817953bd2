#include "model/versioned_row.hpp"

#include "etag.hpp"

namespace stampede {

bool VersionedRow::try_write(std::uint64_t expected) {
  if (expected != version_) return false;
  ++version_;
  return true;
}

RowAnswer answer_row(VersionedRow& row, const RowRequest& request) {
  if (request.op != RowOp::kWrite) return {200, row.version()};
  if (!request.if_match) return {428, row.version()};
  const bool any = etag_matches_any(*request.if_match);
  const auto expected = any ? row.version() : parse_etag(*request.if_match);
  if (!expected || !row.try_write(*expected)) return {412, row.version()};
  return {200, row.version()};
}

}  // namespace stampede
