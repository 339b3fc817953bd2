// The wire's dialects as a pure function of the decision: status, header names and values,
// body shape, for each API a real SDK expects (docs/ADMIN_API.md#dialects).
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "model/dialect.hpp"
#include "model/retry_hint.hpp"

using namespace stampede;
using json = nlohmann::json;

namespace {

std::map<std::string, std::string> header_map(const RenderedAnswer& a) {
  std::map<std::string, std::string> m;
  for (const auto& [name, value] : a.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    CHECK_MESSAGE(m.count(lower) == 0, "header sent twice: " << name);
    m[lower] = value;
  }
  return m;
}

// The decisions the model makes, one of each kind: a quota of 10 with 1.5 s to its reset, a
// hint of 1.5 s where the layer sends one.
Decision decision(const std::string& kind) {
  Decision d;
  const auto quota = [&] {
    d.has_quota = true;
    d.limit = 10;
    d.remaining = 0;
    d.reset_ns = 1'500 * kNsPerMs;
  };
  if (kind == "200") {
    quota();
    d.remaining = 9;
  } else if (kind == "429") {
    d.status = 429;
    d.reason = DecisionReason::kAllowance;
    d.retry_after_ns = 1'500 * kNsPerMs;
    quota();
  } else if (kind == "tokens") {
    d.status = 429;
    d.reason = DecisionReason::kTokens;
    d.retry_after_ns = 1'500 * kNsPerMs;
    quota();
  } else if (kind == "503") {
    d.status = 503;
    d.reason = DecisionReason::kOutage;
    d.retry_after_ns = 1'500 * kNsPerMs;
  } else if (kind == "529") {
    d.status = 529;
    d.reason = DecisionReason::kCapacity;
    d.retry_after_ns = 1'500 * kNsPerMs;
    quota();  // the limiter's numbers: not the tenant's, so not sent
  } else if (kind == "spend-cap") {
    d.status = 429;
    d.reason = DecisionReason::kSpendCap;
    d.should_retry = false;
  } else if (kind == "too-large") {
    d.status = 429;
    d.reason = DecisionReason::kTooLarge;
    d.should_retry = false;
  } else if (kind == "bad-tokens") {
    d.status = 400;
    d.reason = DecisionReason::kBadTokens;
  } else if (kind == "injected") {
    d.status = 400;
    d.reason = DecisionReason::kInjectedError;
  }
  return d;
}

RenderedAnswer render(const ProviderConfig& p, const Decision& d) {
  const AnswerFormat f = make_answer_format(p);
  const auto quota = [&](const QuotaNumbers& q) {
    // 2025-01-02T03:04:05Z, for anthropic's reset times.
    return quota_facts(q, f.ratelimit_headers, q.reset_ns, 1'735'787'045);
  };
  const QuotaFacts requests =
      d.has_quota ? quota({d.limit, d.remaining, d.reset_ns}) : QuotaFacts{};
  const QuotaFacts tokens = d.tokens ? quota(*d.tokens) : QuotaFacts{};
  return render_answer(f, answer_facts(d, f, requests, tokens));
}

ProviderConfig dialect(Dialect k) {
  ProviderConfig p;
  p.dialect = k;
  return p;
}

struct Row {
  Dialect dialect;
  std::string kind;
  int status;                                  // on the wire
  std::map<std::string, std::string> headers;  // lowercased name -> value
  std::set<std::string> absent;                // lowercased names not sent
  std::map<std::string, json> body;            // JSON pointer -> value
};

const std::set<std::string> kNoRateLimit{"ratelimit-limit", "x-ratelimit-limit-requests",
                                         "anthropic-ratelimit-requests-limit"};

}  // namespace

TEST_CASE("each dialect answers each decision with its API's status, headers and body") {
  const std::string amz = "application/x-amz-json-1.0";
  const std::string js = "application/json";
  const std::vector<Row> rows{
      // generic: today's default, byte for byte.
      {Dialect::kGeneric,
       "200",
       200,
       {{"content-type", js},
        {"ratelimit-limit", "10"},
        {"ratelimit-remaining", "9"},
        {"ratelimit-reset", "2"}},
       {"retry-after", "x-should-retry"},
       {{"/type", "message"}, {"/status", "ok"}}},
      {Dialect::kGeneric,
       "429",
       429,
       {{"retry-after", "2"}, {"ratelimit-remaining", "0"}},
       {"retry-after-ms"},
       {{"/error/type", "rate_limit_error"}, {"/error/reason", "request_rate_exceeded"}}},
      {Dialect::kGeneric,
       "529",
       529,
       {{"retry-after", "2"}},
       kNoRateLimit,
       {{"/error/type", "overloaded_error"}}},
      {Dialect::kGeneric,
       "spend-cap",
       429,
       {{"x-should-retry", "false"}},
       {"retry-after"},
       {{"/error/reason", "spend_cap_exceeded"}}},
      // openai
      {Dialect::kOpenAi,
       "200",
       200,
       {{"content-type", js},
        {"x-ratelimit-limit-requests", "10"},
        {"x-ratelimit-remaining-requests", "9"},
        {"x-ratelimit-reset-requests", "1.5s"}},
       {"ratelimit-limit", "retry-after"},
       {{"/object", "chat.completion"},
        {"/choices/0/message/content", "ok"},
        {"/choices/0/finish_reason", "stop"}}},
      {Dialect::kOpenAi,
       "429",
       429,
       {{"retry-after", "2"},
        {"x-ratelimit-remaining-requests", "0"},
        {"x-ratelimit-reset-requests", "1.5s"}},
       {},
       {{"/error/type", "requests"},
        {"/error/code", "rate_limit_exceeded"},
        {"/error/param", nullptr}}},
      {Dialect::kOpenAi,
       "tokens",
       429,
       {{"retry-after", "2"}},
       {},
       {{"/error/type", "tokens"}, {"/error/code", "rate_limit_exceeded"}}},
      {Dialect::kOpenAi,
       "503",
       503,
       {{"retry-after", "2"}},
       kNoRateLimit,
       {{"/error/type", "server_error"}}},
      {Dialect::kOpenAi,
       "529",
       529,
       {{"retry-after", "2"}},
       kNoRateLimit,
       {{"/error/type", "server_error"}}},
      {Dialect::kOpenAi,
       "spend-cap",
       429,
       {{"x-should-retry", "false"}},
       {"retry-after"},
       {{"/error/type", "insufficient_quota"}, {"/error/code", "insufficient_quota"}}},
      {Dialect::kOpenAi,
       "too-large",
       429,
       {{"x-should-retry", "false"}},
       {"retry-after"},
       {{"/error/type", "tokens"}}},
      {Dialect::kOpenAi,
       "injected",
       400,
       {},
       {"retry-after", "x-should-retry"},
       {{"/error/type", "invalid_request_error"}, {"/error/code", nullptr}}},
      // anthropic: today's errors, its headers, and a Message for a 200.
      {Dialect::kAnthropic,
       "200",
       200,
       {{"anthropic-ratelimit-requests-limit", "10"},
        {"anthropic-ratelimit-requests-remaining", "9"},
        {"anthropic-ratelimit-requests-reset", "2025-01-02T03:04:07Z"}},
       {"ratelimit-limit"},
       {{"/type", "message"}, {"/role", "assistant"}, {"/content/0/text", "ok"}}},
      {Dialect::kAnthropic,
       "429",
       429,
       {{"retry-after", "2"}},
       {},
       {{"/type", "error"}, {"/error/type", "rate_limit_error"}}},
      {Dialect::kAnthropic,
       "529",
       529,
       {{"retry-after", "2"}},
       kNoRateLimit,
       {{"/error/type", "overloaded_error"}}},
      {Dialect::kAnthropic, "503", 503, {{"retry-after", "2"}}, {}, {{"/error/type", "api_error"}}},
      {Dialect::kAnthropic,
       "spend-cap",
       429,
       {{"x-should-retry", "false"}},
       {"retry-after"},
       {{"/error/reason", "spend_cap_exceeded"}}},
      // aws: a throttle is a 400 the SDK classifies by name; no rate-limit headers.
      {Dialect::kAws, "200", 200, {{"content-type", amz}}, kNoRateLimit, {}},
      {Dialect::kAws,
       "429",
       400,
       {{"content-type", amz}, {"x-amzn-errortype", "ThrottlingException"}, {"retry-after", "2"}},
       kNoRateLimit,
       {{"/__type", "com.amazonaws.dynamodb.v20120810#ThrottlingException"},
        {"/message", "Rate exceeded"}}},
      {Dialect::kAws,
       "tokens",
       400,
       {{"x-amzn-errortype", "ThrottlingException"}},
       {},
       {{"/__type", "com.amazonaws.dynamodb.v20120810#ThrottlingException"}}},
      {Dialect::kAws,
       "503",
       503,
       {{"x-amzn-errortype", "ServiceUnavailable"}, {"retry-after", "2"}},
       {},
       {{"/__type", "com.amazonaws.dynamodb.v20120810#ServiceUnavailable"}}},
      {Dialect::kAws, "529", 529, {{"x-amzn-errortype", "ServiceUnavailable"}}, {}, {}},
      {Dialect::kAws,
       "spend-cap",
       400,
       {{"x-amzn-errortype", "ServiceQuotaExceededException"}},
       {"retry-after"},
       {{"/__type", "com.amazonaws.dynamodb.v20120810#ServiceQuotaExceededException"}}},
      {Dialect::kAws,
       "too-large",
       400,
       {{"x-amzn-errortype", "ValidationException"}},
       {"retry-after"},
       {}},
      {Dialect::kAws, "bad-tokens", 400, {{"x-amzn-errortype", "ValidationException"}}, {}, {}},
      {Dialect::kAws, "injected", 400, {{"x-amzn-errortype", "ValidationException"}}, {}, {}},
  };
  for (const Row& row : rows) {
    CAPTURE(to_string(row.dialect));
    CAPTURE(row.kind);
    const RenderedAnswer a = render(dialect(row.dialect), decision(row.kind));
    CHECK(a.status == row.status);
    REQUIRE_FALSE(a.headers.empty());
    CHECK(a.headers.front().first == "Content-Type");
    const auto h = header_map(a);
    for (const auto& [name, value] : row.headers) {
      CAPTURE(name);
      REQUIRE(h.count(name) == 1);
      CHECK(h.at(name) == value);
    }
    for (const auto& name : row.absent) {
      CAPTURE(name);
      CHECK(h.count(name) == 0);
    }
    const json body = json::parse(a.body, nullptr, /*allow_exceptions=*/false);
    REQUIRE(body.is_object());
    for (const auto& [pointer, value] : row.body) {
      CAPTURE(pointer);
      REQUIRE(body.contains(json::json_pointer(pointer)));
      CHECK(body.at(json::json_pointer(pointer)) == value);
    }
  }
}

TEST_CASE("generic's bodies are the ones fakeprovider has always sent") {
  const ProviderConfig p;
  CHECK(render(p, decision("200")).body == R"({"type":"message","status":"ok"})");
  CHECK(render(p, decision("503")).body ==
        R"({"type":"error","error":{"type":"api_error","message":"Service unavailable"}})");
  ProviderConfig tokens;
  tokens.token_field = "max_tokens";
  CHECK(json::parse(render(tokens, decision("bad-tokens")).body).at("error").at("message") ==
        "X-Tokens (or the JSON body's max_tokens) must be a whole number of tokens >= 0");
}

TEST_CASE("--ratelimit-headers, when given, wins over the dialect's set") {
  struct Row {
    Dialect dialect;
    std::optional<RateLimitHeaders> given;
    RateLimitHeaders sent;
  };
  for (const Row& r :
       {Row{Dialect::kGeneric, std::nullopt, RateLimitHeaders::kIetf},
        Row{Dialect::kOpenAi, std::nullopt, RateLimitHeaders::kOpenAi},
        Row{Dialect::kAnthropic, std::nullopt, RateLimitHeaders::kAnthropic},
        Row{Dialect::kAws, std::nullopt, RateLimitHeaders::kNone},
        Row{Dialect::kGeneric, RateLimitHeaders::kAnthropic, RateLimitHeaders::kAnthropic},
        Row{Dialect::kOpenAi, RateLimitHeaders::kIetf, RateLimitHeaders::kIetf},
        Row{Dialect::kAws, RateLimitHeaders::kXRateLimit, RateLimitHeaders::kXRateLimit},
        Row{Dialect::kAnthropic, RateLimitHeaders::kNone, RateLimitHeaders::kNone}}) {
    CAPTURE(to_string(r.dialect));
    ProviderConfig p = dialect(r.dialect);
    p.ratelimit_headers = r.given;
    CHECK(ratelimit_headers_of(p) == r.sent);
  }
  ProviderConfig p = dialect(Dialect::kOpenAi);
  p.ratelimit_headers = RateLimitHeaders::kIetf;
  const auto h = header_map(render(p, decision("429")));
  CHECK(h.at("ratelimit-limit") == "10");
  CHECK(h.count("x-ratelimit-limit-requests") == 0);
  // The body stays the dialect's.
  CHECK(json::parse(render(p, decision("429")).body).at("error").at("type") == "requests");
}

TEST_CASE("OpenAI's reset durations are written as its API writes them") {
  struct Row {
    std::int64_t ms;
    const char* text;
  };
  for (const Row& r :
       {Row{-3, "0s"}, Row{0, "0s"}, Row{1, "1ms"}, Row{20, "20ms"}, Row{999, "999ms"},
        Row{1000, "1s"}, Row{1001, "1.001s"}, Row{1500, "1.5s"}, Row{17'280, "17.28s"},
        Row{59'990, "59.99s"}, Row{60'000, "1m0s"}, Row{360'000, "6m0s"}, Row{361'050, "6m1.05s"},
        Row{3'600'000, "1h0m0s"}, Row{3'723'500, "1h2m3.5s"}}) {
    CAPTURE(r.ms);
    CHECK(openai_duration(r.ms) == r.text);
  }
  // The reset is rounded up to the millisecond, so a client never reads it as earlier.
  const auto q = quota_facts({10, 0, 20 * kNsPerMs + 1}, RateLimitHeaders::kOpenAi, 0, 0);
  CHECK(q.reset_ms == 21);
}

TEST_CASE(
    "retry-after-ms: the hint to the millisecond, rounded up, beside a whole-second "
    "Retry-After") {
  struct Row {
    std::int64_t hint_ns;
    bool ms;
    const char* retry_after;
    const char* retry_after_ms;  // null: not sent
  };
  for (const Row& r :
       {Row{1'500 * kNsPerMs, false, "2", nullptr}, Row{1'500 * kNsPerMs, true, "2", "1500"},
        Row{1'500 * kNsPerMs + 1, true, "2", "1501"},
        Row{1, true, "1", "1"},  // never 0: the SDKs read 0 as absent
        Row{0, true, "1", "1"}, Row{kNsPerSec, true, "1", "1000"},
        Row{kNsPerSec + 1, true, "2", "1001"},
        Row{std::numeric_limits<std::int64_t>::max(), true, "9223372037", "9223372036854"}}) {
    CAPTURE(r.hint_ns);
    CAPTURE(r.ms);
    ProviderConfig p;
    p.retry_after_ms = r.ms;
    Decision d = decision("429");
    d.retry_after_ns = r.hint_ns;
    const auto h = header_map(render(p, d));
    CHECK(h.at("retry-after") == r.retry_after);
    if (r.retry_after_ms) {
      CHECK(h.at("retry-after-ms") == r.retry_after_ms);
    } else {
      CHECK(h.count("retry-after-ms") == 0);
    }
  }
  // Off, two hints in the same whole second are the same answer (the data plane caches by it).
  const AnswerFormat f = make_answer_format(ProviderConfig{});
  Decision a = decision("503");
  Decision b = a;
  a.retry_after_ns = 1'100 * kNsPerMs;
  b.retry_after_ns = 1'900 * kNsPerMs;
  CHECK(answer_facts(a, f, {}, {}) == answer_facts(b, f, {}, {}));
}

TEST_CASE("retry_after_ms_up rounds up, at least 1, without wrapping") {
  CHECK(retry_after_ms_up(-5) == 1);
  CHECK(retry_after_ms_up(0) == 1);
  CHECK(retry_after_ms_up(kNsPerMs) == 1);
  CHECK(retry_after_ms_up(kNsPerMs + 1) == 2);
  CHECK(retry_after_ms_up(std::numeric_limits<std::int64_t>::max()) == 9'223'372'036'854);
}

TEST_CASE(
    "--retry-after-jitter: each hint in [hint, hint x (1 + F)), the same for the same "
    "seed, client and send") {
  const std::int64_t hint = kNsPerSec;
  for (const double f : {0.1, 0.5, 1.0}) {
    CAPTURE(f);
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = 0;
    std::set<std::int64_t> seen;
    for (std::uint64_t client = 0; client < 1000; ++client) {
      const std::uint64_t who = hint_identity(0, "c" + std::to_string(client), "tenant");
      const std::int64_t h = jittered_retry_after_ns(hint, f, 1, who, 2);
      CHECK(h == jittered_retry_after_ns(hint, f, 1, who, 2));
      lo = std::min(lo, h);
      hi = std::max(hi, h);
      seen.insert(h);
    }
    CHECK(lo >= hint);
    CHECK(hi < hint + static_cast<std::int64_t>(static_cast<double>(hint) * f));
    // Spread over the whole range, not bunched: within 1% of either end.
    CHECK(lo < hint + static_cast<std::int64_t>(static_cast<double>(hint) * f * 0.01));
    CHECK(hi > hint + static_cast<std::int64_t>(static_cast<double>(hint) * f * 0.99));
    CHECK(seen.size() > 990);
  }
  const std::uint64_t who = hint_identity(0, "c1", "tenant");
  // Another send, another seed, another client: another draw.
  CHECK(jittered_retry_after_ns(hint, 0.5, 1, who, 2) !=
        jittered_retry_after_ns(hint, 0.5, 1, who, 3));
  CHECK(jittered_retry_after_ns(hint, 0.5, 1, who, 2) !=
        jittered_retry_after_ns(hint, 0.5, 2, who, 2));
  // Off, or nothing to stretch: the hint as it was.
  CHECK(jittered_retry_after_ns(hint, 0, 1, who, 2) == hint);
  CHECK(jittered_retry_after_ns(0, 1, 1, who, 2) == 0);
  CHECK(jittered_retry_after_ns(-1, 1, 1, who, 2) == -1);
  // The end of time stays the end of time.
  const auto end = std::numeric_limits<std::int64_t>::max();
  CHECK(jittered_retry_after_ns(end, 1, 1, who, 2) == end);
  CHECK(jittered_retry_after_ns(end - 10, 1, 1, who, 2) >= end - 10);
}

TEST_CASE("a hint is keyed by the counted item, else the client, else the tenant") {
  CHECK(hint_identity(42, "c1", "t") == 42);
  CHECK(hint_identity(0, "c1", "t") == hint_identity(0, "c1", "other tenant"));
  CHECK(hint_identity(0, "c1", "t") != hint_identity(0, "c2", "t"));
  CHECK(hint_identity(0, "", "t1") != hint_identity(0, "", "t2"));
}
