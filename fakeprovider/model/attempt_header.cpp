#include "model/attempt_header.hpp"

#include <charconv>
#include <limits>
#include <system_error>

#include "http_token.hpp"

namespace stampede {
namespace {

// Digits only: from_chars alone would take a leading '-'.
std::optional<std::int64_t> whole_number(std::string_view text) {
  const std::string_view t = trim_ows(text);
  if (t.empty() || t.front() < '0' || t.front() > '9') return std::nullopt;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return n;
}

}  // namespace

std::optional<std::int64_t> parse_send_number(std::string_view text) {
  const auto n = whole_number(text);
  if (!n || *n < 1) return std::nullopt;
  return n;
}

std::optional<std::int64_t> parse_retry_count(std::string_view text) {
  const auto n = whole_number(text);
  if (!n || *n == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return *n + 1;
}

std::optional<std::int64_t> parse_amz_sdk_request(std::string_view text) {
  struct Field {
    int seen = 0;
    std::optional<std::int64_t> value;
  };
  Field attempt;
  Field max;
  while (!text.empty()) {
    const auto semicolon = text.find(';');
    const std::string_view part = text.substr(0, semicolon);
    text = semicolon == std::string_view::npos ? std::string_view() : text.substr(semicolon + 1);
    const auto eq = part.find('=');
    if (eq == std::string_view::npos) continue;  // not key=value: nothing this reads
    const std::string_view key = trim_ows(part.substr(0, eq));
    Field* f = ascii_iequals(key, "attempt") ? &attempt
               : ascii_iequals(key, "max")   ? &max
                                             : nullptr;
    if (!f) continue;
    ++f->seen;
    f->value = parse_send_number(part.substr(eq + 1));
  }
  if (attempt.seen != 1 || !attempt.value || max.seen > 1) return std::nullopt;
  if (max.seen == 1 && (!max.value || *attempt.value > *max.value)) return std::nullopt;
  return attempt.value;
}

}  // namespace stampede
