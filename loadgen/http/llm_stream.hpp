#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "scenario.hpp"
#include "sse_reader.hpp"

namespace stampede {

// A streamed LLM answer as loadgen run --stream reads it, as it arrives (docs/LLM.md): the
// Anthropic Messages API's or OpenAI's Chat Completions'; the request is
// policy/llm_request_body's. Pure.

// Whether loadgen can stream in this dialect: anthropic and openai.
bool streams_in(Dialect dialect);

// One streamed answer's body, read as it arrives: its events, the content tokens among them
// (anthropic: content_block_delta; openai: a chunk whose delta has content), and how it ended
// (anthropic: message_stop, or an error event such as overloaded_error; openai: data: [DONE]).
class StreamAnswerReader {
 public:
  enum class End : std::uint8_t {
    kOpen,    // no end yet: cut here, the stream is broken
    kEnded,   // the dialect's end came
    kError,   // an error event came (anthropic's overloaded_error mid-stream): broken
    kBroken,  // not an event stream the dialect sends (a line past the reader's bound)
  };

  explicit StreamAnswerReader(Dialect dialect = Dialect::kAnthropic) : dialect_(dialect) {}
  // Ready for another answer in this dialect.
  void reset(Dialect dialect);
  // The body's bytes that arrived; how many content tokens they completed.
  std::int64_t feed(std::string_view bytes);
  std::int64_t tokens() const { return tokens_; }
  End end() const { return end_; }

 private:
  void on_event(const SseReader::Event& e);

  Dialect dialect_;
  SseReader sse_;
  std::int64_t tokens_ = 0;
  End end_ = End::kOpen;
};

}  // namespace stampede
