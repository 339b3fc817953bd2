#pragma once

#include <cstdint>
#include <string>

#include "scenario.hpp"

namespace stampede {

// What every request of a streamed fleet is (docs/LLM.md): POST to the dialect's path with a
// JSON body carrying the model, max_tokens, one user message and "stream": true. Pure: the
// live fleet sends it, and the simulator reads it as the provider does, for the tokens it asks
// of the provider's limits.
struct StreamRequest {
  std::string path;  // "/v1/messages" or "/v1/chat/completions"
  std::string body;
};
StreamRequest stream_request(Dialect dialect, std::int64_t max_tokens);

}  // namespace stampede
