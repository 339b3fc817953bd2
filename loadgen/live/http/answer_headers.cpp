#include "live/http/answer_headers.hpp"

#include <array>
#include <utility>

#include "answer_parser.hpp"
#include "http_token.hpp"

namespace stampede {
namespace {

// The remaining-count headers of each dialect, and the limit each counts.
constexpr std::array<std::pair<std::string_view, TokenLimit>, 6> kRemainingHeaders{{
    {"anthropic-ratelimit-requests-remaining", TokenLimit::kRequests},
    {"anthropic-ratelimit-tokens-remaining", TokenLimit::kTokens},
    {"anthropic-ratelimit-input-tokens-remaining", TokenLimit::kInputTokens},
    {"anthropic-ratelimit-output-tokens-remaining", TokenLimit::kOutputTokens},
    {"x-ratelimit-remaining-requests", TokenLimit::kRequests},
    {"x-ratelimit-remaining-tokens", TokenLimit::kTokens},
}};

}  // namespace

std::optional<TokenLimit> exhausted_limit(std::string_view name, std::string_view value) {
  if (trim_ows(value) != "0") return std::nullopt;
  for (const auto& [header, limit] : kRemainingHeaders)
    if (header_name_is(name, header)) return limit;
  return std::nullopt;
}

void clear_answer_headers(LiveClient& c) {
  c.retry_after.clear();
  c.should_retry.reset();
  c.exhausted = 0;
  if (c.occ) c.occ->etag.clear();
}

void read_answer_header(LiveClient& c, std::string_view name, std::string_view value) {
  if (header_name_is(name, "retry-after")) {
    c.retry_after.assign(value);
  } else if (header_name_is(name, "x-should-retry")) {
    c.should_retry = parse_should_retry(value);
  } else if (c.occ && header_name_is(name, "etag")) {
    c.occ->etag.assign(value);
  } else if (const auto limit = exhausted_limit(name, value)) {
    c.exhausted = with_limit(c.exhausted, *limit);
  }
}

}  // namespace stampede
