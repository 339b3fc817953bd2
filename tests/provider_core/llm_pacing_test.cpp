// When a streamed answer's tokens are due and how long it is: from the provider's settings
// and the request's max_tokens, drawn per request from the seed alone.
#include <doctest/doctest.h>

#include <set>

#include "duration.hpp"
#include "model/llm_pacing.hpp"

using namespace stampede;

TEST_CASE("llm pacing: token k is due at the first token's delay plus k periods") {
  StreamConfig c;
  c.first_token_ns = 300 * kNsPerMs;
  CHECK(token_due_ns(c, 0) == 300 * kNsPerMs);
  CHECK(token_due_ns(c, 5) == 300 * kNsPerMs);  // no rate: all with the first
  c.token_rate = Rate{20, kNsPerSec};
  CHECK(token_due_ns(c, 0) == 300 * kNsPerMs);
  CHECK(token_due_ns(c, 1) == 350 * kNsPerMs);
  CHECK(token_due_ns(c, 20) == 1'300 * kNsPerMs);
  c.token_rate = Rate{3, kNsPerSec};  // exact: never a period rounded then multiplied
  CHECK(token_due_ns(c, 3) == 1'300 * kNsPerMs);
  CHECK(token_due_ns(c, 1) == 300 * kNsPerMs + 333'333'333);
  c.token_rate = Rate{1, 3'600 * kNsPerSec};
  CHECK(token_due_ns(c, INT64_MAX / 2) == INT64_MAX);  // saturates, never wraps
}

TEST_CASE("llm pacing: the length is max_tokens bounded by the drawn --output-tokens") {
  StreamConfig c;
  // No --output-tokens: the request's max_tokens, and the answer stops on it.
  CHECK(plan_stream(c, 40, 1, 0) == StreamPlan{40, true, std::nullopt});
  c.output_tokens = TokenRange{10, 10};
  CHECK(plan_stream(c, 40, 1, 0) == StreamPlan{10, false, std::nullopt});
  CHECK(plan_stream(c, 4, 1, 0) == StreamPlan{4, true, std::nullopt});
  CHECK(plan_stream(c, 0, 1, 0).output_tokens == 0);
  c.output_tokens = TokenRange{5, 8};
  std::set<std::int64_t> seen;
  for (std::uint64_t n = 0; n < 200; ++n) {
    const StreamPlan p = plan_stream(c, 100, 7, n);
    CHECK(p.output_tokens >= 5);
    CHECK(p.output_tokens <= 8);
    seen.insert(p.output_tokens);
    CHECK(plan_stream(c, 100, 7, n) == p);  // reproducible
  }
  CHECK(seen == std::set<std::int64_t>{5, 6, 7, 8});
  // Another seed draws otherwise.
  int differ = 0;
  for (std::uint64_t n = 0; n < 50; ++n)
    differ += plan_stream(c, 100, 7, n) != plan_stream(c, 100, 8, n);
  CHECK(differ > 0);
}

TEST_CASE("llm pacing: --stream-errors breaks that share of streams, inside the answer") {
  StreamConfig c;
  c.output_tokens = TokenRange{10, 10};
  c.errors = 0.25;
  int broken = 0;
  for (std::uint64_t n = 0; n < 4'000; ++n) {
    const StreamPlan p = plan_stream(c, 100, 3, n);
    if (!p.break_after) continue;
    ++broken;
    CHECK(*p.break_after >= 0);
    CHECK(*p.break_after < 10);
  }
  CHECK(broken > 900);
  CHECK(broken < 1'100);
  // The share does not move the lengths drawn: the draws are made whatever it is.
  c.output_tokens = TokenRange{1, 50};
  StreamConfig none = c;
  none.errors = 0;
  for (std::uint64_t n = 0; n < 100; ++n)
    CHECK(plan_stream(c, 100, 3, n).output_tokens == plan_stream(none, 100, 3, n).output_tokens);
  c.errors = 1;
  CHECK(plan_stream(c, 0, 3, 0).break_after == 0);  // an empty answer breaks before its tail
}

TEST_CASE("llm pacing: a planned answer's first token, end and tokens, as its client reads them") {
  StreamConfig c;
  c.first_token_ns = 800 * kNsPerMs;
  c.token_rate = Rate{20, kNsPerSec};
  struct Row {
    StreamPlan plan;
    StreamTimes times;
  };
  const Row rows[] = {
      // Ends with its last token: token 9 is due 800 ms + 9 x 50 ms after the head.
      {{10, false, std::nullopt}, {800 * kNsPerMs, 1'250 * kNsPerMs, 10}},
      {{1, false, std::nullopt}, {800 * kNsPerMs, 800 * kNsPerMs, 1}},
      // No token: the tail goes with the head.
      {{0, true, std::nullopt}, {std::nullopt, 0, 0}},
      // Broken after 4 tokens: the break goes with token 3.
      {{10, false, 4}, {800 * kNsPerMs, 950 * kNsPerMs, 4}},
      // Broken before its first token: with the head.
      {{10, false, 0}, {std::nullopt, 0, 0}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.plan.output_tokens);
    CHECK(stream_times(c, row.plan) == row.times);
  }
}

TEST_CASE("llm pacing: the tokens sent by a moment, a broken answer's stopping at the break") {
  StreamConfig c;
  c.first_token_ns = 800 * kNsPerMs;
  c.token_rate = Rate{20, kNsPerSec};
  const StreamPlan whole{10, false, std::nullopt};
  CHECK(tokens_sent_by(c, whole, 0) == 0);
  CHECK(tokens_sent_by(c, whole, 799 * kNsPerMs) == 0);
  CHECK(tokens_sent_by(c, whole, 800 * kNsPerMs) == 1);
  CHECK(tokens_sent_by(c, whole, 849 * kNsPerMs) == 1);
  CHECK(tokens_sent_by(c, whole, 850 * kNsPerMs) == 2);
  CHECK(tokens_sent_by(c, whole, 60 * kNsPerSec) == 10);
  CHECK(tokens_sent_by(c, StreamPlan{10, false, 3}, 60 * kNsPerSec) == 3);
  c.token_rate.reset();  // every token with the first
  CHECK(tokens_sent_by(c, whole, 800 * kNsPerMs) == 10);
}

TEST_CASE("llm pacing: a broken stream is the 529 in anthropic, a broken answer in openai") {
  CHECK(broken_stream_outcome(Dialect::kAnthropic) == Outcome::kOverloaded);
  CHECK(broken_stream_outcome(Dialect::kOpenAi) == Outcome::kBadResponse);
}
