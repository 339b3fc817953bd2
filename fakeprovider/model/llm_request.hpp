#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "scenario.hpp"

namespace stampede {

// What an LLM request's JSON body asks of its answer (docs/LLM.md): POST /v1/messages in the
// anthropic dialect, POST /v1/chat/completions in the openai one.
struct LlmRequest {
  bool stream = false;
  std::int64_t max_tokens = 0;  // openai: max_completion_tokens, else max_tokens
  bool include_usage = false;   // openai: stream_options.include_usage
  // Estimated from the text of the messages (and anthropic's system): a token for every 4
  // bytes, rounded up; the prompt the usage reports when the request declares no count.
  std::int64_t input_tokens = 0;
  // Its "model", for provider.models (empty when absent); a string of at most kMaxModelName
  // bytes, else the request is answered 400.
  std::string model{};
  bool operator==(const LlmRequest&) const = default;
};

// The request, or the body of the 400 invalid_request_error its dialect answers instead: the
// error object as that API writes it, naming the field and what it should be.
struct ReadLlmRequest {
  std::optional<LlmRequest> request;
  std::string error_body;  // set when request is not
};

// Pure: the body as it came. Only the anthropic and openai dialects read one.
ReadLlmRequest read_llm_request(Dialect dialect, std::string_view body);
// The body of the 413 for a request body longer than the limit fakeprovider reads.
std::string llm_body_too_long(Dialect dialect, std::size_t limit);

}  // namespace stampede
