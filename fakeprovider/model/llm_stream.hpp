#pragma once

#include <cstdint>
#include <string>

#include "scenario.hpp"

namespace stampede {

// The bytes of an LLM answer, streamed (text/event-stream) or in one JSON body, as the
// Anthropic Messages API and OpenAI's Chat Completions send them and their official SDKs parse
// them (docs/LLM.md). Pure: the data plane sends each part when the pacing says it is due.
struct StreamFacts {
  Dialect dialect = Dialect::kAnthropic;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  bool include_usage = false;   // openai: a usage chunk before [DONE], "usage":null before it
  bool hit_max_tokens = false;  // stopped by the request's max_tokens: stop_reason max_tokens
  bool operator==(const StreamFacts&) const = default;
};

// Every event before the first token: anthropic's message_start, content_block_start and ping;
// openai's chunk with the assistant's role.
std::string stream_head(const StreamFacts& facts);
// Token k's event (from 0): anthropic's content_block_delta, openai's content chunk.
std::string stream_token(const StreamFacts& facts, std::int64_t k);
// Every event after the last token: anthropic's content_block_stop, message_delta and
// message_stop; openai's chunk with finish_reason, the usage chunk when asked, data: [DONE].
std::string stream_tail(const StreamFacts& facts);
// What a stream broken mid-way sends before it ends: anthropic's error event (overloaded_error);
// nothing for openai, whose connection is cut.
std::string stream_break(const StreamFacts& facts);
// The answer not streamed: one Message or chat.completion with the same text and usage.
std::string llm_answer_body(const StreamFacts& facts);

}  // namespace stampede
