// The LLM limits (docs/LLM.md) as pure arithmetic: input tokens charged at admission, output
// tokens reserved at max_tokens and settled at the answer's end, OpenAI's max() rule, the
// answers open against max_concurrent, and their headers on the wire.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duration.hpp"
#include "model/dialect.hpp"
#include "model/limiter.hpp"
#include "model/provider_policy.hpp"
#include "model/reservation.hpp"

using namespace stampede;

namespace {

constexpr std::int64_t kMin = 60 * kNsPerSec;

ProviderConfig llm(Dialect dialect, const char* input, const char* output) {
  ProviderConfig c;
  c.dialect = dialect;
  if (input) c.input_token_allowance = *parse_rate(input);
  if (output) c.output_token_allowance = *parse_rate(output);
  return c;
}

LlmCharge charge(std::int64_t input, std::int64_t max_tokens) {
  return {input, max_tokens, false};
}

DeclaredTokens tokens_declared(std::int64_t n) {
  return {n, false};
}

}  // namespace

TEST_CASE("llm limits: a refund goes back into each limiter kind, never past a whole allowance") {
  struct Row {
    const char* name;
    LimiterKind kind;
    std::int64_t take;      // admitted at t = 1 s
    std::int64_t refund;    // given back at t = 2 s
    std::int64_t then_fit;  // the most admitted at t = 2 s after it
  };
  // 6000/min: a token bucket refills 100 a second, so a second later 100 more fit.
  for (const Row& r : {
           Row{"bucket, a part back", LimiterKind::kTokenBucket, 6000, 4000, 4100},
           Row{"bucket, all back", LimiterKind::kTokenBucket, 6000, 6000, 6000},
           Row{"bucket, more than taken: capped at a full bucket", LimiterKind::kTokenBucket, 1000,
               9000, 6000},
           Row{"bucket, nothing back", LimiterKind::kTokenBucket, 6000, 0, 100},
           Row{"bucket, a negative refund takes nothing", LimiterKind::kTokenBucket, 6000, -50,
               100},
           Row{"fixed, a part back", LimiterKind::kFixedWindow, 6000, 4000, 4000},
           Row{"fixed, more than used: never below zero used", LimiterKind::kFixedWindow, 1000,
               9000, 6000},
           Row{"sliding, a part back", LimiterKind::kSlidingWindow, 6000, 4000, 4000},
           Row{"sliding, more than taken: only what it took", LimiterKind::kSlidingWindow, 1000,
               9000, 6000},
       }) {
    CAPTURE(r.name);
    auto limiter = make_split_token_limiter(r.kind, *parse_rate("6000/min"));
    REQUIRE(limiter->try_acquire(kNsPerSec, r.take).admitted);
    limiter->refund(2 * kNsPerSec, kNsPerSec, r.refund);
    CHECK_FALSE(limiter->try_acquire(2 * kNsPerSec, r.then_fit + 1).admitted);
    CHECK(limiter->try_acquire(2 * kNsPerSec, r.then_fit).admitted);
  }
}

TEST_CASE("llm limits: a fixed window's refund for a window gone by is gone with it") {
  auto limiter = make_split_token_limiter(LimiterKind::kFixedWindow, *parse_rate("100/min"));
  REQUIRE(limiter->try_acquire(59 * kNsPerSec, 100).admitted);
  REQUIRE(limiter->try_acquire(61 * kNsPerSec, 100).admitted);  // the next window, whole
  limiter->refund(62 * kNsPerSec, 59 * kNsPerSec, 100);         // for the first: nothing back now
  CHECK_FALSE(limiter->try_acquire(62 * kNsPerSec, 1).admitted);
}

TEST_CASE("llm limits: the default bucket holds the minute and refills continuously") {
  // 10,000/min: a 4,000-token request fits; the bucket is 10,000 deep, refilling 1 each 6 ms.
  auto limiter = make_split_token_limiter(LimiterKind::kPerSecond, *parse_rate("10000/min"));
  auto v = limiter->try_acquire(0, 4000);
  CHECK(v.admitted);
  CHECK(v.limit == 10000);
  CHECK(v.remaining == 6000);
  CHECK(limiter->try_acquire(0, 6000).admitted);
  v = limiter->try_acquire(0, 1);
  CHECK_FALSE(v.admitted);
  CHECK(v.remaining == 0);
  CHECK(v.retry_after_ns == 6 * kNsPerMs);  // one token's refill
  CHECK(v.reset_ns == kMin);                // empty: whole again in a minute
  // Continuous: 3 s later 500 tokens are back, not a window's worth nor none.
  CHECK_FALSE(limiter->try_acquire(3 * kNsPerSec, 501).admitted);
  CHECK(limiter->try_acquire(3 * kNsPerSec, 500).admitted);
}

TEST_CASE("llm limits: OpenAI counts the prompt and the larger of max_tokens and the estimate") {
  struct Row {
    std::int64_t input, max_tokens, estimate, counted;
  };
  for (const Row& r :
       {Row{100, 4096, 50, 4196}, Row{100, 50, 4096, 4196}, Row{0, 0, 0, 0}, Row{7, 10, 10, 17},
        Row{std::numeric_limits<std::int64_t>::max(), 1, 0,
            std::numeric_limits<std::int64_t>::max()}}) {
    CAPTURE(r.max_tokens);
    CAPTURE(r.estimate);
    CHECK(openai_admission_tokens(r.input, r.max_tokens, r.estimate) == r.counted);
  }
  struct Unused {
    std::int64_t reserved, written, back;
  };
  for (const Unused& u :
       {Unused{4096, 50, 4046}, Unused{4096, 4096, 0}, Unused{50, 4096, 0}, Unused{10, -5, 10}}) {
    CAPTURE(u.written);
    CHECK(unused_tokens(u.reserved, u.written) == u.back);
  }
}

TEST_CASE("llm limits: output tokens are reserved at max_tokens, the unused part back at the end") {
  ProviderPolicy policy(llm(Dialect::kAnthropic, nullptr, "40960/min"));
  std::vector<Decision> admitted;
  for (int i = 0; i < 10; ++i) {
    admitted.push_back(policy.admit(0, "t", {}, charge(10, 4096)));
    REQUIRE(admitted.back().status == 200);
    CHECK(admitted.back().reservation.output == 4096);
  }
  CHECK(admitted.back().output_tokens->remaining == 0);
  // The 11th: nothing written yet, and still the output limit refuses it.
  const Decision over = policy.admit(0, "t", {}, charge(10, 4096));
  CHECK(over.status == 429);
  CHECK(over.reason == DecisionReason::kOutputTokens);
  CHECK(over.reservation == Reservation{});
  REQUIRE(over.retry_after_ns);
  CHECK(*over.retry_after_ns == 6 * kNsPerSec);  // 4096 tokens at 40960/min
  // Each ends having written 50: 4046 back each, at once.
  for (const Decision& d : admitted) policy.settle_answer(0, "t", d.reservation, 50);
  const Decision next = policy.admit(0, "t", {}, charge(10, 4096));
  CHECK(next.status == 200);
  CHECK(next.output_tokens->remaining == 40960 - 10 * 50 - 4096);
  // A settle that wrote everything gives nothing back; one that claims more takes nothing.
  policy.settle_answer(0, "t", next.reservation, 5000);
  CHECK(policy.admit(0, "t", {}, charge(0, 1)).output_tokens->remaining ==
        40960 - 10 * 50 - 4096 - 1);
}

TEST_CASE("llm limits: input tokens charged at admission; a later refusal gives them back") {
  ProviderPolicy policy(llm(Dialect::kAnthropic, "1000/min", "100/min"));
  const Decision first = policy.admit(0, "t", {}, charge(600, 100));
  CHECK(first.status == 200);
  CHECK(first.input_tokens->remaining == 400);
  CHECK(first.reservation.output == 100);
  // The output bucket is empty: refused for output, and its 300 input tokens are not kept.
  const Decision over = policy.admit(0, "t", {}, charge(300, 10));
  CHECK(over.reason == DecisionReason::kOutputTokens);
  CHECK(policy.admit(0, "t", {}, charge(400, 0)).status == 200);
  const Decision input_over = policy.admit(0, "t", {}, charge(1, 0));
  CHECK(input_over.reason == DecisionReason::kInputTokens);
  // More than the whole allowance: never admitted, not to be retried.
  const Decision huge = policy.admit(0, "u", {}, charge(1001, 0));
  CHECK(huge.reason == DecisionReason::kTooLarge);
  CHECK_FALSE(huge.should_retry);
}

TEST_CASE("llm limits: openai's token allowance charges max(), settles to the real count") {
  ProviderConfig c;
  c.dialect = Dialect::kOpenAi;
  c.token_allowance = *parse_rate("10000/min");
  ProviderPolicy policy(c);
  const Decision d = policy.admit(0, "t", {}, charge(100, 4096));
  REQUIRE(d.status == 200);
  CHECK(d.tokens->remaining == 10000 - 4196);
  CHECK(d.reservation.combined == 4096);
  policy.settle_answer(0, "t", d.reservation, 50);
  // The window still holds what was used: 100 in, 50 out.
  CHECK(policy.admit(0, "t", {}, charge(0, 0)).tokens->remaining == 10000 - 150);
  // anthropic keeps the token allowance as it was: the declared count, nothing held.
  c.dialect = Dialect::kAnthropic;
  ProviderPolicy anthropic(c);
  const Decision a = anthropic.admit(0, "t", tokens_declared(7), charge(100, 4096));
  CHECK(a.tokens->remaining == 10000 - 7);
  CHECK_FALSE(a.reservation.held());
}

TEST_CASE("llm limits: max_concurrent counts open answers, the hint from the earliest end") {
  ProviderConfig c;
  c.dialect = Dialect::kAnthropic;
  c.max_concurrent = 2;
  c.stream.first_token_ns = kNsPerSec;
  c.stream.token_rate = *parse_rate("10/s");
  ProviderPolicy policy(c);
  // Streamed, 11 tokens: the last due 1 s + 10 * 100 ms after the start.
  const LlmCharge streamed{0, 11, true};
  const Decision a = policy.admit(0, "t", {}, streamed);
  const Decision b = policy.admit(500 * kNsPerMs, "t", {}, streamed);
  CHECK(a.reservation.expected_end_ns == 2 * kNsPerSec);
  CHECK(b.reservation.expected_end_ns == 2'500 * kNsPerMs);
  const Decision over = policy.admit(kNsPerSec, "t", {}, streamed);
  CHECK(over.status == 429);
  CHECK(over.reason == DecisionReason::kConcurrency);
  CHECK(over.retry_after_ns == kNsPerSec);
  CHECK(policy.admit(kNsPerSec, "other", {}, streamed).status == 200);  // per tenant
  policy.settle_answer(kNsPerSec, "t", a.reservation, 11);
  CHECK(policy.admit(kNsPerSec, "t", {}, streamed).status == 200);
  // An expected end already past: the hint is none to wait, not negative.
  CHECK(policy.admit(3 * kNsPerSec, "t", {}, streamed).retry_after_ns == 0);
}

TEST_CASE("llm limits: each limit's headers, their values and formats at the edges") {
  const auto facts = [](std::int64_t remaining, std::int64_t reset_ns, RateLimitHeaders set) {
    return quota_facts({40960, remaining, reset_ns}, set, reset_ns, 1'735'787'045);
  };
  struct Row {
    const char* name;
    Dialect dialect;
    std::int64_t remaining, reset_ns;
    std::string head;  // the answer's headers, in order, after Content-Type
  };
  for (const Row& r : {
           Row{"anthropic, full bucket", Dialect::kAnthropic, 40960, 0,
               "anthropic-ratelimit-tokens-limit: 40960\n"
               "anthropic-ratelimit-tokens-remaining: 40960\n"
               "anthropic-ratelimit-tokens-reset: 2025-01-02T03:04:05Z\n"
               "anthropic-ratelimit-input-tokens-limit: 40960\n"
               "anthropic-ratelimit-input-tokens-remaining: 40960\n"
               "anthropic-ratelimit-input-tokens-reset: 2025-01-02T03:04:05Z\n"
               "anthropic-ratelimit-output-tokens-limit: 40960\n"
               "anthropic-ratelimit-output-tokens-remaining: 40960\n"
               "anthropic-ratelimit-output-tokens-reset: 2025-01-02T03:04:05Z\n"},
           Row{"anthropic, empty bucket", Dialect::kAnthropic, 0, kMin,
               "anthropic-ratelimit-tokens-limit: 40960\n"
               "anthropic-ratelimit-tokens-remaining: 0\n"
               "anthropic-ratelimit-tokens-reset: 2025-01-02T03:05:05Z\n"
               "anthropic-ratelimit-input-tokens-limit: 40960\n"
               "anthropic-ratelimit-input-tokens-remaining: 40960\n"
               "anthropic-ratelimit-input-tokens-reset: 2025-01-02T03:04:05Z\n"
               "anthropic-ratelimit-output-tokens-limit: 40960\n"
               "anthropic-ratelimit-output-tokens-remaining: 0\n"
               "anthropic-ratelimit-output-tokens-reset: 2025-01-02T03:05:05Z\n"},
           Row{"anthropic, reset in the past reads as now", Dialect::kAnthropic, 5, -kNsPerSec,
               "anthropic-ratelimit-tokens-limit: 40960\n"
               "anthropic-ratelimit-tokens-remaining: 5\n"
               "anthropic-ratelimit-tokens-reset: 2025-01-02T03:04:05Z\n"
               "anthropic-ratelimit-input-tokens-limit: 40960\n"
               "anthropic-ratelimit-input-tokens-remaining: 40960\n"
               "anthropic-ratelimit-input-tokens-reset: 2025-01-02T03:04:05Z\n"
               "anthropic-ratelimit-output-tokens-limit: 40960\n"
               "anthropic-ratelimit-output-tokens-remaining: 5\n"
               "anthropic-ratelimit-output-tokens-reset: 2025-01-02T03:04:05Z\n"},
           Row{"openai, empty bucket", Dialect::kOpenAi, 0, kMin,
               "x-ratelimit-limit-tokens: 40960\n"
               "x-ratelimit-remaining-tokens: 0\n"
               "x-ratelimit-reset-tokens: 1m0s\n"},
           Row{"openai, 12 ms to go", Dialect::kOpenAi, 3, 12 * kNsPerMs - 1,
               "x-ratelimit-limit-tokens: 40960\n"
               "x-ratelimit-remaining-tokens: 3\n"
               "x-ratelimit-reset-tokens: 12ms\n"},
           Row{"openai, reset in the past", Dialect::kOpenAi, 40960, -kNsPerSec,
               "x-ratelimit-limit-tokens: 40960\n"
               "x-ratelimit-remaining-tokens: 40960\n"
               "x-ratelimit-reset-tokens: 0s\n"},
       }) {
    CAPTURE(r.name);
    ProviderConfig p;
    p.dialect = r.dialect;
    const AnswerFormat f = make_answer_format(p);
    Decision d;
    const QuotaFacts output = facts(r.remaining, r.reset_ns, f.ratelimit_headers);
    const QuotaFacts input = facts(40960, 0, f.ratelimit_headers);
    const RenderedAnswer a = render_answer(f, answer_facts(d, f, {}, {}, input, output));
    std::string head;
    for (std::size_t i = 1; i < a.headers.size(); ++i)
      head += a.headers[i].first + ": " + a.headers[i].second + "\n";
    CHECK(head == r.head);
  }
}

TEST_CASE("llm limits: a 429 names the limit that refused, its hint from that bucket") {
  struct Row {
    Dialect dialect;
    DecisionReason reason;
    std::string body;
  };
  for (
      const Row& r : {
          Row{Dialect::kAnthropic, DecisionReason::kOutputTokens,
              R"({"type":"error","error":{"type":"rate_limit_error","reason":"output_token_rate_exceeded","message":"Number of output tokens (reserved at max_tokens until the answer ends) has exceeded your output token rate limit; retry after the time in Retry-After"}})"},
          Row{Dialect::kAnthropic, DecisionReason::kInputTokens,
              R"({"type":"error","error":{"type":"rate_limit_error","reason":"input_token_rate_exceeded","message":"Number of input tokens has exceeded your input token rate limit; retry after the time in Retry-After"}})"},
          Row{Dialect::kAnthropic, DecisionReason::kConcurrency,
              R"({"type":"error","error":{"type":"rate_limit_error","reason":"concurrency_exceeded","message":"Number of concurrent requests has exceeded your limit; retry after the time in Retry-After"}})"},
          Row{Dialect::kOpenAi, DecisionReason::kOutputTokens,
              R"({"error":{"message":"Rate limit reached for output tokens (reserved at max_completion_tokens until the answer ends); please try again after the time in retry-after","type":"tokens","param":null,"code":"rate_limit_exceeded"}})"},
          Row{Dialect::kOpenAi, DecisionReason::kConcurrency,
              R"({"error":{"message":"Rate limit reached for concurrent requests; please try again after the time in retry-after","type":"requests","param":null,"code":"rate_limit_exceeded"}})"},
      }) {
    CAPTURE(to_string(r.reason));
    ProviderConfig p;
    p.dialect = r.dialect;
    p.retry_after_ms = true;
    const AnswerFormat f = make_answer_format(p);
    Decision d;
    d.status = 429;
    d.reason = r.reason;
    d.retry_after_ns = 6 * kNsPerSec + 1;
    const RenderedAnswer a = render_answer(f, answer_facts(d, f, {}, {}));
    CHECK(a.status == 429);
    CHECK(a.body == r.body);
    REQUIRE(a.headers.size() >= 3);
    CHECK(a.headers[1] == std::pair<std::string, std::string>{"Retry-After", "7"});
    CHECK(a.headers[2] == std::pair<std::string, std::string>{"retry-after-ms", "6001"});
  }
}

TEST_CASE("llm limits: tokens-* carries the most restrictive token limit in force") {
  const auto q = [](std::int64_t limit, std::int64_t remaining) {
    QuotaFacts f;
    f.sent = true;
    f.limit = limit;
    f.remaining = remaining;
    return f;
  };
  AnswerFacts a;
  CHECK_FALSE(most_restrictive_tokens(a).sent);
  a.output_tokens = q(100, 10);
  CHECK(most_restrictive_tokens(a) == a.output_tokens);
  a.tokens = q(1000, 5);
  CHECK(most_restrictive_tokens(a) == a.tokens);
  a.input_tokens = q(50, 5);  // as few left, and the smaller limit
  CHECK(most_restrictive_tokens(a) == a.input_tokens);
}
