#include "model/dialect.hpp"

#include <algorithm>
#include <ctime>
#include <string_view>

#include <nlohmann/json.hpp>

#include "civil_date.hpp"
#include "duration.hpp"
#include "model/retry_hint.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

// ---- generic and anthropic: Anthropic's error shape, which the generic dialect has always sent.

constexpr std::string_view kOkBody = R"({"type":"message","status":"ok"})";
// A Message, so code after an Anthropic SDK's messages.create reads content[0].text.
constexpr std::string_view kAnthropicOkBody =
    R"({"id":"msg_fakeprovider","type":"message","role":"assistant","model":"fakeprovider","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":1}})";
constexpr std::string_view kRateLimitedBody =
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"request_rate_exceeded","message":"Number of requests has exceeded your rate limit; retry after the time in Retry-After"}})";
constexpr std::string_view kTokensBody =
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"token_rate_exceeded","message":"Number of tokens has exceeded your token rate limit; retry after the time in Retry-After"}})";
constexpr std::string_view kInputTokensBody =
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"input_token_rate_exceeded","message":"Number of input tokens has exceeded your input token rate limit; retry after the time in Retry-After"}})";
constexpr std::string_view kOutputTokensBody =
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"output_token_rate_exceeded","message":"Number of output tokens (reserved at max_tokens until the answer ends) has exceeded your output token rate limit; retry after the time in Retry-After"}})";
constexpr std::string_view kConcurrencyBody =
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"concurrency_exceeded","message":"Number of concurrent requests has exceeded your limit; retry after the time in Retry-After"}})";
constexpr std::string_view kSpendCapBody =
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"spend_cap_exceeded","message":"Your spend cap is used up; do not retry this request"}})";
constexpr std::string_view kTooLargeBody =
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"request_too_large","message":"This request declares more tokens than your whole token rate limit; it can never be admitted"}})";
constexpr std::string_view kOverloadedBody =
    R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
constexpr std::string_view kUnavailableBody =
    R"({"type":"error","error":{"type":"api_error","message":"Service unavailable"}})";
constexpr std::string_view kServerErrorBody =
    R"({"type":"error","error":{"type":"api_error","message":"Internal server error"}})";
constexpr std::string_view kInvalidRequestBody =
    R"({"type":"error","error":{"type":"invalid_request_error","message":"Injected error: this request is not retryable"}})";

std::string invalid_tokens_message(const AnswerFormat& f) {
  return f.token_source + " must be a whole number of tokens >= 0";
}

std::string anthropic_body(const AnswerFormat& f, const AnswerFacts& a) {
  switch (a.reason) {
    case DecisionReason::kTokens:
      return std::string(kTokensBody);
    case DecisionReason::kInputTokens:
      return std::string(kInputTokensBody);
    case DecisionReason::kOutputTokens:
      return std::string(kOutputTokensBody);
    case DecisionReason::kConcurrency:
      return std::string(kConcurrencyBody);
    case DecisionReason::kSpendCap:
      return std::string(kSpendCapBody);
    case DecisionReason::kTooLarge:
      return std::string(kTooLargeBody);
    case DecisionReason::kBadTokens: {
      // The field name is any string a scenario gives, so the JSON is built, not pasted.
      const nlohmann::ordered_json body{{"type", "error"},
                                        {"error",
                                         {{"type", "invalid_request_error"},
                                          {"reason", "invalid_tokens"},
                                          {"message", invalid_tokens_message(f)}}}};
      return body.dump();
    }
    default:
      break;
  }
  switch (a.status) {
    case 200:
      return std::string(f.dialect == Dialect::kAnthropic ? kAnthropicOkBody : kOkBody);
    case 429:
      return std::string(kRateLimitedBody);
    case 529:
      return std::string(kOverloadedBody);
    case 503:
      return std::string(kUnavailableBody);
    case 400:
      return std::string(kInvalidRequestBody);
    default:
      return std::string(kServerErrorBody);
  }
}

// ---- openai: its error object, and a 200 shaped as a chat completion.

constexpr std::string_view kOpenAiOkBody =
    R"({"id":"chatcmpl-fakeprovider","object":"chat.completion","created":0,"model":"fakeprovider","choices":[{"index":0,"message":{"role":"assistant","content":"ok","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":1,"total_tokens":1}})";

std::string openai_error(std::string_view message, std::string_view type, const char* code) {
  return openai_error_body(message, type, std::nullopt,
                           code ? std::optional<std::string>(code) : std::nullopt);
}

std::string openai_body(const AnswerFormat& f, const AnswerFacts& a) {
  switch (a.reason) {
    case DecisionReason::kAllowance:
      return openai_error(
          "Rate limit reached for requests; please try again after the time in retry-after",
          "requests", "rate_limit_exceeded");
    case DecisionReason::kTokens:
      return openai_error(
          "Rate limit reached for tokens; please try again after the time in retry-after", "tokens",
          "rate_limit_exceeded");
    case DecisionReason::kInputTokens:
      return openai_error(
          "Rate limit reached for input tokens; please try again after the time in retry-after",
          "tokens", "rate_limit_exceeded");
    case DecisionReason::kOutputTokens:
      return openai_error(
          "Rate limit reached for output tokens (reserved at max_completion_tokens until the "
          "answer ends); please try again after the time in retry-after",
          "tokens", "rate_limit_exceeded");
    case DecisionReason::kConcurrency:
      return openai_error(
          "Rate limit reached for concurrent requests; please try again after the time in "
          "retry-after",
          "requests", "rate_limit_exceeded");
    case DecisionReason::kTooLarge:
      return openai_error(
          "Request too large: it declares more tokens than the whole token "
          "rate limit, and can never be admitted",
          "tokens", "rate_limit_exceeded");
    case DecisionReason::kSpendCap:
      return openai_error(
          "You exceeded your current quota, please check your plan and billing details",
          "insufficient_quota", "insufficient_quota");
    case DecisionReason::kBadTokens:
      return openai_error(invalid_tokens_message(f), "invalid_request_error", "invalid_tokens");
    case DecisionReason::kInjectedError:
      return openai_error("Injected error: this request is not retryable", "invalid_request_error",
                          nullptr);
    default:
      break;
  }
  switch (a.status) {
    case 200:
      return std::string(kOpenAiOkBody);
    case 503:
      return openai_error("The server is overloaded or not ready yet", "server_error", nullptr);
    case 529:
      return openai_error("The engine is currently overloaded, please try again later",
                          "server_error", nullptr);
    default:
      return openai_error("The server had an error while processing your request", "server_error",
                          nullptr);
  }
}

// ---- aws: the JSON protocol's errors (DynamoDB's namespace), named in x-amzn-ErrorType and in
// the body's __type. The AWS SDK for JavaScript v3 decides retries by that name and the status
// (@smithy/core, src/submodules/retry/service-error-classification/constants.ts and
// util-retry/StandardRetryStrategy.ts): ThrottlingException is in THROTTLING_ERROR_CODES
// (retried with the throttling backoff); 500, 502, 503 and 504 are TRANSIENT_ERROR_STATUS_CODES
// (retried); any other 5xx (529) is a SERVER_ERROR and any other 4xx a CLIENT_ERROR, neither
// retried. ServiceQuotaExceededException (Bedrock's name for an account quota used up) is in
// none of the lists: a spend cap the SDK does not retry. LimitExceededException would not do:
// it is a throttling code.

constexpr std::string_view kAwsOkBody = "{}";

struct AwsError {
  int status;
  const char* type;
  const char* message;
};

AwsError aws_error(const AnswerFacts& a) {
  switch (a.reason) {
    case DecisionReason::kAllowance:
    case DecisionReason::kTokens:
    case DecisionReason::kInputTokens:
    case DecisionReason::kOutputTokens:
    case DecisionReason::kConcurrency:
      return {400, "ThrottlingException", "Rate exceeded"};
    case DecisionReason::kSpendCap:
      return {400, "ServiceQuotaExceededException",
              "Your spend cap is used up; do not retry this request"};
    case DecisionReason::kTooLarge:
      return {400, "ValidationException",
              "This request declares more tokens than your whole token rate limit"};
    case DecisionReason::kBadTokens:
      return {400, "ValidationException", "The token count is not a whole number >= 0"};
    case DecisionReason::kInjectedError:
      return {400, "ValidationException", "Injected error: this request is not retryable"};
    default:
      break;
  }
  if (a.status == 503) return {503, "ServiceUnavailable", "Service unavailable"};
  if (a.status == 529) return {529, "ServiceUnavailable", "Overloaded"};
  return {a.status, "InternalServerError", "Internal server error"};
}

void render_aws(const AnswerFacts& a, RenderedAnswer& out) {
  out.headers.emplace_back("Content-Type", "application/x-amz-json-1.0");
  if (a.status == 200) {
    out.body = std::string(kAwsOkBody);
    return;
  }
  const AwsError e = aws_error(a);
  out.status = e.status;
  out.headers.emplace_back("x-amzn-ErrorType", e.type);
  const nlohmann::ordered_json body{
      {"__type", std::string("com.amazonaws.dynamodb.v20120810#") + e.type},
      {"message", e.message}};
  out.body = body.dump();
}

// ---- the rate-limit headers.

std::int64_t ceil_units(std::int64_t ns, std::int64_t unit_ns) {
  return saturating_add(std::max<std::int64_t>(ns, 0), unit_ns - 1) / unit_ns;
}

// RFC 3339 in UTC, as Anthropic sends its reset times: 2025-01-02T03:04:05Z.
std::string rfc3339(std::int64_t epoch_s) {
  return strftime_utc(epoch_s, "%Y-%m-%dT%H:%M:%SZ");
}

bool token_reason(DecisionReason r) {
  return r == DecisionReason::kTokens || r == DecisionReason::kInputTokens ||
         r == DecisionReason::kOutputTokens;
}

// The IETF draft's RateLimit-* fields carry one quota: the one a 429 for tokens is about, or
// else the one closest to running out, by the fraction left.
const QuotaFacts& ietf_quota(const AnswerFacts& a) {
  const QuotaFacts& tokens = most_restrictive_tokens(a);
  if (!tokens.sent) return a.requests;
  if (!a.requests.sent || token_reason(a.reason)) return tokens;
  const auto left = [](const QuotaFacts& q) {
    return static_cast<double>(q.remaining) /
           static_cast<double>(std::max<std::int64_t>(1, q.limit));
  };
  return left(tokens) < left(a.requests) ? tokens : a.requests;
}

std::string reset_text(RateLimitHeaders set, const QuotaFacts& q) {
  switch (set) {
    case RateLimitHeaders::kAnthropic:
      return rfc3339(q.reset_at_s);
    case RateLimitHeaders::kOpenAi:
      return openai_duration(q.reset_ms);
    default:
      return std::to_string(ceil_units(q.reset_ms, 1000));
  }
}

void add_ratelimit_headers(RateLimitHeaders set, const AnswerFacts& a, Headers& out) {
  const auto add_three = [&](const QuotaFacts& q, const char* limit, const char* remaining,
                             const char* reset) {
    if (!q.sent) return;
    out.emplace_back(limit, std::to_string(q.limit));
    out.emplace_back(remaining, std::to_string(q.remaining));
    out.emplace_back(reset, reset_text(set, q));
  };
  const QuotaFacts& tokens = most_restrictive_tokens(a);
  switch (set) {
    case RateLimitHeaders::kNone:
      return;
    case RateLimitHeaders::kIetf:
      return add_three(ietf_quota(a), "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");
    case RateLimitHeaders::kXRateLimit:
      // The request quota as before; the tokens with a "-Tokens" suffix.
      add_three(a.requests, "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");
      return add_three(tokens, "X-RateLimit-Limit-Tokens", "X-RateLimit-Remaining-Tokens",
                       "X-RateLimit-Reset-Tokens");
    case RateLimitHeaders::kOpenAi:
      add_three(a.requests, "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests",
                "x-ratelimit-reset-requests");
      return add_three(tokens, "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens",
                       "x-ratelimit-reset-tokens");
    case RateLimitHeaders::kAnthropic:
      add_three(a.requests, "anthropic-ratelimit-requests-limit",
                "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset");
      add_three(tokens, "anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining",
                "anthropic-ratelimit-tokens-reset");
      add_three(a.input_tokens, "anthropic-ratelimit-input-tokens-limit",
                "anthropic-ratelimit-input-tokens-remaining",
                "anthropic-ratelimit-input-tokens-reset");
      return add_three(a.output_tokens, "anthropic-ratelimit-output-tokens-limit",
                       "anthropic-ratelimit-output-tokens-remaining",
                       "anthropic-ratelimit-output-tokens-reset");
  }
}

}  // namespace

AnswerFormat make_answer_format(const ProviderConfig& p) {
  AnswerFormat f;
  f.dialect = p.dialect;
  f.ratelimit_headers = ratelimit_headers_of(p);
  f.retry_after_ms = p.retry_after_ms;
  f.token_source = p.token_header;
  if (!p.token_field.empty()) f.token_source += " (or the JSON body's " + p.token_field + ")";
  return f;
}

RenderedAnswer render_answer(const AnswerFormat& format, const AnswerFacts& facts) {
  RenderedAnswer out;
  out.status = facts.status;
  if (format.dialect == Dialect::kAws) {
    render_aws(facts, out);
  } else {
    out.headers.emplace_back("Content-Type", "application/json");
    out.body = format.dialect == Dialect::kOpenAi ? openai_body(format, facts)
                                                  : anthropic_body(format, facts);
  }
  if (facts.retry_after_ms) {
    out.headers.emplace_back("Retry-After",
                             std::to_string(ceil_units(*facts.retry_after_ms, 1000)));
    // Read before Retry-After by the Stainless SDKs (OpenAI, Anthropic): the hint to the ms.
    if (format.retry_after_ms)
      out.headers.emplace_back("retry-after-ms", std::to_string(*facts.retry_after_ms));
  }
  // What the Anthropic and OpenAI SDKs read before their own rules: this one is not retried.
  if (!facts.should_retry) out.headers.emplace_back("x-should-retry", "false");
  add_ratelimit_headers(format.ratelimit_headers, facts, out.headers);
  return out;
}

bool needs_wall_clock(RateLimitHeaders headers) {
  return headers == RateLimitHeaders::kAnthropic;
}

QuotaFacts quota_facts(const QuotaNumbers& q, RateLimitHeaders headers, std::int64_t reset_wall_ns,
                       std::int64_t now_epoch_s) {
  QuotaFacts f;
  f.sent = true;
  f.limit = q.limit;
  f.remaining = q.remaining;
  f.reset_ms = headers == RateLimitHeaders::kOpenAi
                   ? ceil_units(q.reset_ns, kNsPerMs)
                   : saturating_mul(ceil_units(q.reset_ns, kNsPerSec), 1000);
  // Anthropic sends the time of the reset: the scenario's duration is stretched to the wall's.
  if (needs_wall_clock(headers))
    f.reset_at_s = saturating_add(now_epoch_s, ceil_units(reset_wall_ns, kNsPerSec));
  return f;
}

const QuotaFacts& most_restrictive_tokens(const AnswerFacts& a) {
  const QuotaFacts* most = &a.tokens;
  for (const QuotaFacts* q : {&a.input_tokens, &a.output_tokens}) {
    if (!q->sent) continue;
    const bool fewer = q->remaining < most->remaining ||
                       (q->remaining == most->remaining && q->limit < most->limit);
    if (!most->sent || fewer) most = q;
  }
  return *most;
}

AnswerFacts answer_facts(const Decision& d, const AnswerFormat& format, const QuotaFacts& requests,
                         const QuotaFacts& tokens, const QuotaFacts& input_tokens,
                         const QuotaFacts& output_tokens) {
  AnswerFacts a;
  a.status = d.status;
  a.reason = d.reason;
  a.should_retry = d.should_retry;
  if (d.retry_after_ns) {
    // Without retry-after-ms only whole seconds reach the wire: equal answers stay equal.
    a.retry_after_ms = format.retry_after_ms
                           ? retry_after_ms_up(*d.retry_after_ns)
                           : saturating_mul(retry_after_seconds(*d.retry_after_ns), 1000);
  }
  // The rate-limit headers describe the tenant's allowances; a capacity rejection is not
  // about them.
  if (d.reason != DecisionReason::kCapacity &&
      format.ratelimit_headers != RateLimitHeaders::kNone) {
    a.requests = requests;
    a.tokens = tokens;
    a.input_tokens = input_tokens;
    a.output_tokens = output_tokens;
  }
  return a;
}

std::string anthropic_error_body(std::string_view type, std::string_view message) {
  const nlohmann::ordered_json body{{"type", "error"},
                                    {"error", {{"type", type}, {"message", message}}}};
  return body.dump();
}

std::string openai_error_body(std::string_view message, std::string_view type,
                              const std::optional<std::string>& param,
                              const std::optional<std::string>& code) {
  const auto or_null = [](const std::optional<std::string>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  const nlohmann::ordered_json body{
      {"error",
       {{"message", message}, {"type", type}, {"param", or_null(param)}, {"code", or_null(code)}}}};
  return body.dump();
}

std::string openai_duration(std::int64_t ms) {
  ms = std::max<std::int64_t>(ms, 0);
  if (ms == 0) return "0s";
  if (ms < 1000) return std::to_string(ms) + "ms";
  const std::int64_t h = ms / 3'600'000;
  const std::int64_t m = ms / 60'000 % 60;
  std::string s = std::to_string(ms / 1000 % 60);
  if (const std::int64_t frac = ms % 1000; frac != 0) {
    std::string digits = std::to_string(1000 + frac).substr(1);  // three digits, leading zeros
    digits.erase(digits.find_last_not_of('0') + 1);
    s += "." + digits;
  }
  s += "s";
  if (h > 0) return std::to_string(h) + "h" + std::to_string(m) + "m" + s;
  if (m > 0) return std::to_string(m) + "m" + s;
  return s;
}

}  // namespace stampede
