#include "etag.hpp"

#include <charconv>

namespace stampede {
namespace {

// As a header callback may hand a value over: with its whitespace and line end.
std::string_view trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\t' || t.back() == '\r' || t.back() == '\n'))
    t.remove_suffix(1);
  return t;
}

}  // namespace

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

bool etag_matches_any(std::string_view if_match) {
  return trimmed(if_match) == "*";
}

}  // namespace stampede
