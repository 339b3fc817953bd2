#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/provider_policy.hpp"
#include "scenario.hpp"

namespace stampede {

// How a decision is written on the wire: the status, headers and body a real SDK of that API
// reads (docs/ADMIN_API.md#dialects). Pure: the data plane builds the facts, this writes them,
// and the data plane sends what it is given.

// One quota as its headers carry it.
struct QuotaFacts {
  bool sent = false;
  std::int64_t limit = 0;
  std::int64_t remaining = 0;
  // Until it is whole again, in scenario milliseconds: whole ms for OpenAI's durations, whole
  // seconds (times 1000) for the delta-seconds sets, so equal answers compare equal.
  std::int64_t reset_ms = 0;
  std::int64_t reset_at_s = 0;  // anthropic: the Unix time of the reset, on the wall
  bool operator==(const QuotaFacts&) const = default;
};

// What an answer's bytes depend on, besides the Date header the server adds.
struct AnswerFacts {
  int status = 200;  // the model's: 429 for a rate limit whatever the dialect writes
  DecisionReason reason = DecisionReason::kServed;
  // None: no hint; else rounded up (whole seconds without retry-after-ms).
  std::optional<std::int64_t> retry_after_ms;
  bool should_retry = true;
  QuotaFacts requests;
  QuotaFacts tokens;  // the token allowance (provider.token_allowance)
  QuotaFacts input_tokens;
  QuotaFacts output_tokens;
  bool operator==(const AnswerFacts&) const = default;
};

// A provider's wire settings, from its config once.
struct AnswerFormat {
  Dialect dialect = Dialect::kGeneric;
  RateLimitHeaders ratelimit_headers = RateLimitHeaders::kIetf;
  bool retry_after_ms = false;  // send retry-after-ms beside Retry-After
  std::string token_source;     // where a token count is read, for the invalid_tokens body
};
AnswerFormat make_answer_format(const ProviderConfig& p);

struct RenderedAnswer {
  int status = 200;                                          // on the wire
  std::vector<std::pair<std::string, std::string>> headers;  // Content-Type first
  std::string body;
};
RenderedAnswer render_answer(const AnswerFormat& format, const AnswerFacts& facts);

// A quota's numbers for the headers: its reset rounded up as the header set needs it.
// reset_wall_ns and now_epoch_s are read only for anthropic's reset time.
QuotaFacts quota_facts(const QuotaNumbers& q, RateLimitHeaders headers, std::int64_t reset_wall_ns,
                       std::int64_t now_epoch_s);
// Whether quota_facts needs the wall clock (anthropic's absolute reset times).
bool needs_wall_clock(RateLimitHeaders headers);
// The facts of a decision (its retry_after_ns jittered already, when it is to be).
AnswerFacts answer_facts(const Decision& d, const AnswerFormat& format, const QuotaFacts& requests,
                         const QuotaFacts& tokens, const QuotaFacts& input_tokens = {},
                         const QuotaFacts& output_tokens = {});
// The token limit the tokens-* headers carry (anthropic's tokens-*, openai's *-tokens, the
// others' token quota): the most restrictive of those in force, the one with the fewest tokens
// left (the smaller limit on a tie); not sent when none is.
const QuotaFacts& most_restrictive_tokens(const AnswerFacts& a);

// The error bodies of the two LLM APIs, for answers written outside render_answer too.
std::string anthropic_error_body(std::string_view type, std::string_view message);
std::string openai_error_body(std::string_view message, std::string_view type,
                              const std::optional<std::string>& param,
                              const std::optional<std::string>& code);

// A duration as OpenAI writes its x-ratelimit-reset-* headers (Go's time.Duration format, to
// the millisecond): "20ms", "1s", "17.28s", "6m0s", "1h2m3.5s".
std::string openai_duration(std::int64_t ms);

}  // namespace stampede
