#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stampede {

// occ mode's one row: a version that a conditional write bumps, as a table with optimistic
// concurrency control keeps it. Pure; the caller serialises calls, as for ProviderPolicy.
class VersionedRow {
 public:
  std::uint64_t version() const { return version_; }
  // Succeeds, and bumps the version, only if nothing wrote since `expected` was read.
  bool try_write(std::uint64_t expected);

 private:
  std::uint64_t version_ = 0;
};

// What a request asks of the row: GET /row reads it, PUT /row writes it, naming the version
// it read in If-Match (as sent; absent for none).
enum class RowOp { kNone, kRead, kWrite };
struct RowRequest {
  RowOp op = RowOp::kNone;
  std::optional<std::string_view> if_match;
};

// The answer to a row request, once the provider's layers have let it through.
struct RowAnswer {
  int status = 200;           // 200; 412 the If-Match is stale; 428 a PUT without If-Match
  std::uint64_t version = 0;  // the row's version after the request, sent as the ETag
};

// If-Match "*" matches any version (RFC 9110); a strong tag "N" matches version N; anything
// else (weak tags, lists, garbage) matches none.
RowAnswer answer_row(VersionedRow& row, const RowRequest& request);

}  // namespace stampede
