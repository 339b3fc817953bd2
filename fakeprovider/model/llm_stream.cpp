#include "model/llm_stream.hpp"

#include <string_view>

#include "saturating.hpp"

namespace stampede {
namespace {

// Token k's text: "ok", then " ok" for each one after, so the text of a one-token answer is the
// "ok" that fakeprovider has always answered.
std::string_view token_text(std::int64_t k) {
  return k == 0 ? "ok" : " ok";
}

std::string answer_text(std::int64_t tokens) {
  std::string text;
  for (std::int64_t k = 0; k < tokens; ++k) text += token_text(k);
  return text;
}

std::string num(std::int64_t v) {
  return std::to_string(v);
}

// ---- anthropic: named events, each with its type in its data too.

std::string event(std::string_view name, const std::string& data) {
  std::string out = "event: ";
  out.append(name).append("\ndata: ").append(data).append("\n\n");
  return out;
}

const char* anthropic_stop(const StreamFacts& f) {
  return f.hit_max_tokens ? "\"max_tokens\"" : "\"end_turn\"";
}

// A Message's fields in the API's order, its content and stop_reason given.
std::string anthropic_message(const StreamFacts& f, const std::string& content,
                              const char* stop_reason, std::int64_t output_tokens) {
  return R"({"id":"msg_fakeprovider","type":"message","role":"assistant","model":"fakeprovider","content":)" +
         content + R"(,"stop_reason":)" + stop_reason +
         R"(,"stop_sequence":null,"usage":{"input_tokens":)" + num(f.input_tokens) +
         R"(,"output_tokens":)" + num(output_tokens) + "}}";
}

std::string anthropic_head(const StreamFacts& f) {
  return event("message_start", R"({"type":"message_start","message":)" +
                                    anthropic_message(f, "[]", "null", 0) + "}") +
         event(
             "content_block_start",
             R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})") +
         event("ping", R"({"type":"ping"})");
}

std::string anthropic_tail(const StreamFacts& f) {
  return event("content_block_stop", R"({"type":"content_block_stop","index":0})") +
         event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":)" +
                                    std::string(anthropic_stop(f)) +
                                    R"(,"stop_sequence":null},"usage":{"output_tokens":)" +
                                    num(f.output_tokens) + "}}") +
         event("message_stop", R"({"type":"message_stop"})");
}

// ---- openai: unnamed data lines, each a chat.completion.chunk.

std::string data(const std::string& payload) {
  return "data: " + payload + "\n\n";
}

std::string chunk(const StreamFacts& f, const std::string& choices, const std::string& usage) {
  return data(
      R"({"id":"chatcmpl-fakeprovider","object":"chat.completion.chunk","created":0,"model":"fakeprovider","choices":)" +
      choices + (f.include_usage ? R"(,"usage":)" + usage : std::string()) + "}");
}

std::string choice(const std::string& delta, const char* finish_reason) {
  return R"([{"index":0,"delta":)" + delta + R"(,"logprobs":null,"finish_reason":)" +
         finish_reason + "}]";
}

const char* openai_finish(const StreamFacts& f) {
  return f.hit_max_tokens ? "\"length\"" : "\"stop\"";
}

std::string openai_usage(const StreamFacts& f) {
  return R"({"prompt_tokens":)" + num(f.input_tokens) + R"(,"completion_tokens":)" +
         num(f.output_tokens) + R"(,"total_tokens":)" +
         num(saturating_add(f.input_tokens, f.output_tokens)) + "}";
}

std::string openai_tail(const StreamFacts& f) {
  std::string out = chunk(f, choice("{}", openai_finish(f)), "null");
  if (f.include_usage) out += chunk(f, "[]", openai_usage(f));
  return out + "data: [DONE]\n\n";
}

bool openai(const StreamFacts& f) {
  return f.dialect == Dialect::kOpenAi;
}

}  // namespace

std::string stream_head(const StreamFacts& f) {
  if (openai(f))
    return chunk(f, choice(R"({"role":"assistant","content":"","refusal":null})", "null"), "null");
  return anthropic_head(f);
}

std::string stream_token(const StreamFacts& f, std::int64_t k) {
  const std::string text(token_text(k));
  if (openai(f)) return chunk(f, choice(R"({"content":")" + text + "\"}", "null"), "null");
  return event("content_block_delta",
               R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":")" +
                   text + "\"}}");
}

std::string stream_tail(const StreamFacts& f) {
  return openai(f) ? openai_tail(f) : anthropic_tail(f);
}

std::string stream_break(const StreamFacts& f) {
  if (openai(f)) return {};
  return event("error",
               R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
}

std::string llm_answer_body(const StreamFacts& f) {
  const std::string text = answer_text(f.output_tokens);
  if (openai(f)) {
    return R"({"id":"chatcmpl-fakeprovider","object":"chat.completion","created":0,"model":"fakeprovider","choices":[{"index":0,"message":{"role":"assistant","content":")" +
           text + R"(","refusal":null},"logprobs":null,"finish_reason":)" + openai_finish(f) +
           R"(}],"usage":)" + openai_usage(f) + "}";
  }
  return anthropic_message(f, R"([{"type":"text","text":")" + text + "\"}]", anthropic_stop(f),
                           f.output_tokens);
}

}  // namespace stampede
