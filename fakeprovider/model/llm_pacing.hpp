#pragma once

#include <cstdint>
#include <optional>

#include "outcome.hpp"
#include "scenario.hpp"

namespace stampede {

// When a streamed answer's parts are due, and how long it is, from the provider's StreamConfig
// (--first-token, --token-rate, --output-tokens, --stream-errors). Pure: scenario time, which
// the data plane stretches by its time scale as it does every other duration.

// Token k (from 0) is due this long after the answer's head was sent: the first token after
// first_token_ns, each next one a token_rate period later (exact: k * window / count).
std::int64_t token_due_ns(const StreamConfig& config, std::int64_t k);

// One answer's draws, from the provider's seed and the request's number alone, so a run gives
// every request the same length and break whatever the loops' interleaving.
struct StreamPlan {
  std::int64_t output_tokens = 0;
  bool hit_max_tokens = false;  // the request's max_tokens, not the drawn length, bounded it
  // Broken after this many tokens (0 .. output_tokens - 1); none: it ends well.
  std::optional<std::int64_t> break_after;
  bool operator==(const StreamPlan&) const = default;
};
StreamPlan plan_stream(const StreamConfig& config, std::int64_t max_tokens, std::uint64_t seed,
                       std::uint64_t request_number);

// What a client reads of one planned answer, in scenario time from its head: when its first
// token comes (none: it carries none), when it ends, and its tokens. It ends with its last
// token, or breaks with the last token sent before the break (the data plane sends the error
// event, or cuts the connection, in that token's write): the simulator's stream.
struct StreamTimes {
  std::optional<std::int64_t> first_token_ns;
  std::int64_t end_ns = 0;
  std::int64_t tokens = 0;
  bool operator==(const StreamTimes&) const = default;
};
StreamTimes stream_times(const StreamConfig& config, const StreamPlan& plan);

// The tokens of the answer sent within elapsed_ns of its head: what a client that gave up
// then (its timeout) had read.
std::int64_t tokens_sent_by(const StreamConfig& config, const StreamPlan& plan,
                            std::int64_t elapsed_ns);

// What the client makes of a broken stream: anthropic's overloaded_error event is the 529 its
// API answers before a stream starts; openai's cut connection is a broken answer.
Outcome broken_stream_outcome(Dialect dialect);

}  // namespace stampede
