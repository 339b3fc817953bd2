// An LLM request's body read for its dialect: what it asks of the answer, or the 400
// invalid_request_error that API writes for a body it cannot take.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/llm_request.hpp"

using namespace stampede;

namespace {

struct LlmBodyCase {
  const char* name;
  Dialect dialect;
  const char* body;
  std::optional<LlmRequest> request;
  const char* error = "";
};

const std::vector<LlmBodyCase> kLlmBodyCases{
    {"anthropic streamed", Dialect::kAnthropic, R"({"model":"m","max_tokens":64,"stream":true})",
     LlmRequest{true, 64, false, 0, "m"}},
    {"anthropic not streamed", Dialect::kAnthropic, R"({"max_tokens":0})", LlmRequest{false, 0}},
    {"anthropic stream null", Dialect::kAnthropic, R"({"max_tokens":5,"stream":null})",
     LlmRequest{false, 5}},
    {"anthropic ignores stream_options", Dialect::kAnthropic,
     R"({"max_tokens":5,"stream_options":{"include_usage":true}})", LlmRequest{false, 5}},
    {"openai max_completion_tokens first", Dialect::kOpenAi,
     R"({"max_tokens":9,"max_completion_tokens":3,"stream":true,"stream_options":{"include_usage":true}})",
     LlmRequest{true, 3, true}},
    {"openai max_tokens still read", Dialect::kOpenAi, R"({"max_tokens":9})", LlmRequest{false, 9}},
    {"huge max_tokens", Dialect::kAnthropic, R"({"max_tokens":18446744073709551615})",
     LlmRequest{false, INT64_MAX}},
    // The prompt's estimate: a token for every 4 bytes of the messages' text, rounded up.
    {"anthropic prompt: system and a string", Dialect::kAnthropic,
     R"({"max_tokens":5,"system":"abcd","messages":[{"role":"user","content":"hello"}]})",
     LlmRequest{false, 5, false, 3}},
    {"anthropic prompt: text blocks count, others do not", Dialect::kAnthropic,
     R"({"max_tokens":5,"system":[{"type":"text","text":"ab"}],"messages":[{"role":"user","content":[{"type":"text","text":"abcdef"},{"type":"image","source":{}}]}]})",
     LlmRequest{false, 5, false, 2}},
    {"openai prompt: messages and content parts", Dialect::kOpenAi,
     R"({"max_tokens":5,"messages":[{"role":"system","content":"abcd"},{"role":"user","content":[{"type":"text","text":"a"}]}]})",
     LlmRequest{false, 5, false, 2}},
    {"a prompt of no known shape counts nothing", Dialect::kOpenAi,
     R"({"max_tokens":5,"messages":"hi","system":7})", LlmRequest{false, 5}},
    {"anthropic not json", Dialect::kAnthropic, R"({"max_tokens":)", std::nullopt,
     R"({"type":"error","error":{"type":"invalid_request_error","message":"There was an error parsing the body of your request: it is not valid JSON"}})"},
    {"anthropic not an object", Dialect::kAnthropic, "[1]", std::nullopt,
     R"({"type":"error","error":{"type":"invalid_request_error","message":"Input should be a valid dictionary"}})"},
    {"anthropic stream a string", Dialect::kAnthropic, R"({"max_tokens":5,"stream":"yes"})",
     std::nullopt,
     R"({"type":"error","error":{"type":"invalid_request_error","message":"stream: Input should be a valid boolean"}})"},
    {"anthropic max_tokens absent", Dialect::kAnthropic, R"({"stream":true})", std::nullopt,
     R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}})"},
    {"anthropic max_tokens negative", Dialect::kAnthropic, R"({"max_tokens":-1})", std::nullopt,
     R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Input should be greater than or equal to 0"}})"},
    {"anthropic max_tokens a fraction", Dialect::kAnthropic, R"({"max_tokens":1.5})", std::nullopt,
     R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Input should be a valid integer"}})"},
    {"openai not json", Dialect::kOpenAi, "stream=true", std::nullopt,
     R"x({"error":{"message":"We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)","type":"invalid_request_error","param":null,"code":null}})x"},
    {"openai stream a number", Dialect::kOpenAi, R"({"max_tokens":5,"stream":1})", std::nullopt,
     R"({"error":{"message":"Invalid type for 'stream': expected a boolean, but got an integer instead.","type":"invalid_request_error","param":"stream","code":"invalid_type"}})"},
    {"openai max tokens absent", Dialect::kOpenAi, R"({"stream":true})", std::nullopt,
     R"({"error":{"message":"Missing required parameter: 'max_completion_tokens'.","type":"invalid_request_error","param":"max_completion_tokens","code":"missing_required_parameter"}})"},
    {"openai max_completion_tokens negative", Dialect::kOpenAi, R"({"max_completion_tokens":-3})",
     std::nullopt,
     R"({"error":{"message":"Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 0, but got -3 instead.","type":"invalid_request_error","param":"max_completion_tokens","code":"integer_below_min_value"}})"},
    {"openai max_tokens a string", Dialect::kOpenAi, R"({"max_tokens":"5"})", std::nullopt,
     R"({"error":{"message":"Invalid type for 'max_tokens': expected an integer, but got a string instead.","type":"invalid_request_error","param":"max_tokens","code":"invalid_type"}})"},
    {"openai include_usage a string", Dialect::kOpenAi,
     R"({"max_tokens":5,"stream_options":{"include_usage":"true"}})", std::nullopt,
     R"({"error":{"message":"Invalid type for 'stream_options.include_usage': expected a boolean, but got a string instead.","type":"invalid_request_error","param":"stream_options.include_usage","code":"invalid_type"}})"},
    {"openai stream_options a list", Dialect::kOpenAi, R"({"max_tokens":5,"stream_options":[]})",
     std::nullopt,
     R"({"error":{"message":"Invalid type for 'stream_options': expected an object, but got an array instead.","type":"invalid_request_error","param":"stream_options","code":"invalid_type"}})"},
};

}  // namespace

TEST_CASE("llm request: the body's stream, max_tokens and include_usage, or the API's 400") {
  for (const LlmBodyCase& c : kLlmBodyCases) {
    CAPTURE(c.name);
    const ReadLlmRequest read = read_llm_request(c.dialect, c.body);
    CHECK(read.request == c.request);
    CHECK(read.error_body == c.error);
  }
}
