#include "model/versioned_row.hpp"

#include <charconv>

namespace stampede {
namespace {

std::string_view trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\t' || t.back() == '\r' || t.back() == '\n'))
    t.remove_suffix(1);
  return t;
}

}  // namespace

bool VersionedRow::try_write(std::uint64_t expected) {
  if (expected != version_) return false;
  ++version_;
  return true;
}

RowAnswer answer_row(VersionedRow& row, const RowRequest& request) {
  if (request.op != RowOp::kWrite) return {200, row.version()};
  if (!request.if_match) return {428, row.version()};
  const bool any = trimmed(*request.if_match) == "*";
  const auto expected = any ? row.version() : parse_etag(*request.if_match);
  if (!expected || !row.try_write(*expected)) return {412, row.version()};
  return {200, row.version()};
}

std::string format_etag(std::uint64_t version) {
  return "\"" + std::to_string(version) + "\"";
}

std::optional<std::uint64_t> parse_etag(std::string_view text) {
  const std::string_view t = trimmed(text);
  if (t.size() < 3 || t.front() != '"' || t.back() != '"') return std::nullopt;
  std::uint64_t v = 0;
  const char* first = t.data() + 1;
  const char* last = t.data() + t.size() - 1;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc{} || end != last) return std::nullopt;
  return v;
}

}  // namespace stampede
