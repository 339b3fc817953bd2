#include "policy/llm_request_body.hpp"

#include <nlohmann/json.hpp>

namespace stampede {

bool sends_llm_requests(const Scenario& s) {
  return s.fleet.stream || s.given.count("fleet.max_tokens") > 0;
}

StreamRequest stream_request(Dialect dialect, std::int64_t max_tokens, bool stream) {
  const nlohmann::json messages = nlohmann::json::array(
      {{{"role", "user"}, {"content", "stampede: a streamed answer, please"}}});
  if (dialect == Dialect::kOpenAi) {
    // max_completion_tokens is what current models read; fakeprovider reads it first.
    const nlohmann::json body{{"model", "stampede"},
                              {"max_completion_tokens", max_tokens},
                              {"messages", messages},
                              {"stream", stream}};
    return {"/v1/chat/completions", body.dump()};
  }
  const nlohmann::json body{{"model", "stampede"},
                            {"max_tokens", max_tokens},
                            {"messages", messages},
                            {"stream", stream}};
  return {"/v1/messages", body.dump()};
}

}  // namespace stampede
