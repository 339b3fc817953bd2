#pragma once

#include <cstdint>
#include <string>

#include "scenario.hpp"

namespace stampede {

// Whether every request of the fleet is an LLM request in the provider's dialect
// (docs/LLM.md): streamed (fleet.stream), or answered in one body when a max_tokens is given
// (fleet.max_tokens, --max-tokens) without it.
bool sends_llm_requests(const Scenario& s);

// What every request of such a fleet is: POST to the dialect's path with a JSON body carrying
// the model, max_tokens, one user message and "stream". Pure: the live fleet sends it, and the
// simulator reads it as the provider does, for the tokens it asks of the provider's limits.
struct StreamRequest {
  std::string path;  // "/v1/messages" or "/v1/chat/completions"
  std::string body;
};
StreamRequest stream_request(Dialect dialect, std::int64_t max_tokens, bool stream = true);

}  // namespace stampede
