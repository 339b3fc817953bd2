// The bytes of a streamed LLM answer per dialect, against goldens written from the APIs'
// documented streams (Anthropic's "Streaming Messages", OpenAI's chat.completion.chunk) and
// what their official SDKs' stream readers parse: anthropic-sdk-typescript's MessageStream,
// openai-node's ChatCompletionStream (which wants a finish_reason on every choice).
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "model/dialect.hpp"
#include "model/llm_stream.hpp"

using namespace stampede;

namespace {

std::string whole_stream(const StreamFacts& f) {
  std::string s = stream_head(f);
  for (std::int64_t k = 0; k < f.output_tokens; ++k) s += stream_token(f, k);
  return s + stream_tail(f);
}

constexpr const char* kAnthropicGolden = R"(event: message_start
data: {"type":"message_start","message":{"id":"msg_fakeprovider","type":"message","role":"assistant","model":"fakeprovider","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":0}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type":"ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" ok"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" ok"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}

event: message_stop
data: {"type":"message_stop"}

)";

constexpr const char* kOpenAiGolden =
    R"(data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[{"index":0,"delta":{"content":"ok"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[{"index":0,"delta":{"content":" ok"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}

data: [DONE]

)";

// With stream_options.include_usage: "usage":null on every chunk, then one with no choices.
constexpr const char* kOpenAiUsageGolden =
    R"(data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[{"index":0,"delta":{"content":"ok"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

data: {"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8}}

data: [DONE]

)";

}  // namespace

TEST_CASE("llm stream: anthropic's events, byte for byte") {
  CHECK(whole_stream({Dialect::kAnthropic, 12, 3, false, false}) == kAnthropicGolden);
}

TEST_CASE("llm stream: openai's chunks, byte for byte, with and without the usage chunk") {
  CHECK(whole_stream({Dialect::kOpenAi, 5, 2, false, true}) == kOpenAiGolden);
  CHECK(whole_stream({Dialect::kOpenAi, 7, 1, true, false}) == kOpenAiUsageGolden);
}

TEST_CASE("llm stream: the stop reason says whether max_tokens stopped the answer") {
  CHECK(
      stream_tail({Dialect::kAnthropic, 0, 2, false, true}).find(R"("stop_reason":"max_tokens")") !=
      std::string::npos);
  CHECK(stream_tail({Dialect::kOpenAi, 0, 2, false, false}).find(R"("finish_reason":"stop")") !=
        std::string::npos);
}

TEST_CASE("llm stream: a broken stream is anthropic's overloaded_error event, openai's cut") {
  CHECK(stream_break({Dialect::kAnthropic, 1, 4, false, false}) ==
        "event: error\ndata: "
        R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"
        "\n\n");
  CHECK(stream_break({Dialect::kOpenAi, 1, 4, true, false}).empty());
}

TEST_CASE("llm stream: the answer not streamed carries the stream's text and usage") {
  CHECK(
      llm_answer_body({Dialect::kAnthropic, 12, 3, false, false}) ==
      R"({"id":"msg_fakeprovider","type":"message","role":"assistant","model":"fakeprovider","content":[{"type":"text","text":"ok ok ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":3}})");
  CHECK(
      llm_answer_body({Dialect::kOpenAi, 5, 2, false, true}) ==
      R"({"id":"chatcmpl-fakeprovider","object":"chat.completion","created":0,"model":"fakeprovider","choices":[{"index":0,"message":{"role":"assistant","content":"ok ok","refusal":null},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}})");
}

TEST_CASE("llm stream: every data line is one JSON document") {
  for (const auto dialect : {Dialect::kAnthropic, Dialect::kOpenAi}) {
    const std::string s =
        whole_stream({dialect, 3, 4, true, false}) + stream_break({dialect, 3, 4});
    std::size_t at = 0;
    int lines = 0;
    while ((at = s.find("data: ", at)) != std::string::npos) {
      const std::size_t end = s.find('\n', at);
      const std::string line = s.substr(at + 6, end - at - 6);
      at = end;
      ++lines;
      if (line == "[DONE]") continue;
      CHECK_MESSAGE(!nlohmann::json::parse(line, nullptr, false).is_discarded(), line);
    }
    CHECK(lines >= 6);
  }
}

TEST_CASE("llm stream: a one-token answer is the 200 the dialects have always sent") {
  AnswerFormat format;
  for (const auto dialect : {Dialect::kAnthropic, Dialect::kOpenAi}) {
    format.dialect = dialect;
    CHECK(render_answer(format, AnswerFacts{}).body == llm_answer_body({dialect, 0, 1}));
  }
}
