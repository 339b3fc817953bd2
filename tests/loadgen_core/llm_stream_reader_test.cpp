// What loadgen run --stream sends and how it reads the answer (loadgen/http/llm_stream), by
// tables: the provider's own stream bytes (fakeprovider/model/llm_stream) in each dialect, read
// whole and split in two at every byte, whole, broken and cut.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "http/llm_stream.hpp"
#include "model/llm_stream.hpp"
#include "policy/llm_request_body.hpp"

using namespace stampede;
using StreamEnd = StreamAnswerReader::End;

namespace {

constexpr std::int64_t kStreamTokens = 4;

StreamFacts llm_facts(Dialect dialect, bool include_usage = false) {
  return {.dialect = dialect,
          .input_tokens = 0,
          .output_tokens = kStreamTokens,
          .include_usage = include_usage,
          .hit_max_tokens = false};
}

// The stream's bytes up to token `tokens` (all: the tail too; else the break's).
std::string stream_bytes(const StreamFacts& f, std::int64_t tokens) {
  std::string out = stream_head(f);
  for (std::int64_t k = 0; k < tokens; ++k) out += stream_token(f, k);
  return out + (tokens == f.output_tokens ? stream_tail(f) : stream_break(f));
}

struct StreamRead {
  std::int64_t tokens;
  StreamEnd end;
};

StreamRead read_split(Dialect dialect, const std::string& bytes, std::size_t cut) {
  StreamAnswerReader reader(dialect);
  const std::int64_t first = reader.feed(std::string_view(bytes).substr(0, cut));
  const std::int64_t second = reader.feed(std::string_view(bytes).substr(cut));
  CHECK(first + second == reader.tokens());
  return {reader.tokens(), reader.end()};
}

struct StreamCase {
  const char* what;
  StreamFacts facts;
  std::int64_t tokens_sent;
  StreamEnd end;
};

}  // namespace

TEST_CASE("StreamAnswerReader: the provider's streams, whole, broken and cut, at every split") {
  const std::vector<StreamCase> rows{
      {"anthropic, whole", llm_facts(Dialect::kAnthropic), kStreamTokens, StreamEnd::kEnded},
      {"anthropic, overloaded_error after 2 tokens", llm_facts(Dialect::kAnthropic), 2,
       StreamEnd::kError},
      {"anthropic, overloaded_error before any token", llm_facts(Dialect::kAnthropic), 0,
       StreamEnd::kError},
      {"openai, whole", llm_facts(Dialect::kOpenAi), kStreamTokens, StreamEnd::kEnded},
      // The usage chunk has no choices: no token of its own.
      {"openai, whole, with usage", llm_facts(Dialect::kOpenAi, true), kStreamTokens,
       StreamEnd::kEnded},
      // OpenAI's break is the connection cut: no [DONE], the stream still open when it ends.
      {"openai, cut after 3 tokens", llm_facts(Dialect::kOpenAi), 3, StreamEnd::kOpen},
  };
  for (const auto& row : rows) {
    const std::string bytes = stream_bytes(row.facts, row.tokens_sent);
    for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
      CAPTURE(row.what);
      CAPTURE(cut);
      const StreamRead r = read_split(row.facts.dialect, bytes, cut);
      CHECK(r.tokens == row.tokens_sent);
      CHECK(r.end == row.end);
    }
  }
}

TEST_CASE("StreamAnswerReader: a stream cut before its end event is still open") {
  const auto f = llm_facts(Dialect::kAnthropic);
  std::string bytes = stream_head(f) + stream_token(f, 0) + stream_tail(f);
  bytes.resize(bytes.size() - 2);  // message_stop's blank line never came
  StreamAnswerReader reader(Dialect::kAnthropic);
  reader.feed(bytes);
  CHECK(reader.tokens() == 1);
  CHECK(reader.end() == StreamEnd::kOpen);
  // reset: ready for the next answer, in another dialect too.
  reader.reset(Dialect::kOpenAi);
  CHECK(reader.tokens() == 0);
  CHECK(reader.end() == StreamEnd::kOpen);
}

TEST_CASE("stream_request: each dialect's endpoint and a body its API reads as streamed") {
  const auto anthropic = stream_request(Dialect::kAnthropic, 64);
  CHECK(anthropic.path == "/v1/messages");
  const auto a = nlohmann::json::parse(anthropic.body);
  CHECK(a["stream"] == true);
  CHECK(a["max_tokens"] == 64);
  CHECK(a["model"].is_string());
  CHECK(a["messages"][0]["role"] == "user");
  const auto openai = stream_request(Dialect::kOpenAi, 9);
  CHECK(openai.path == "/v1/chat/completions");
  const auto o = nlohmann::json::parse(openai.body);
  CHECK(o["stream"] == true);
  CHECK(o["max_completion_tokens"] == 9);
  CHECK(o["messages"][0]["content"].is_string());
  CHECK(streams_in(Dialect::kAnthropic));
  CHECK(streams_in(Dialect::kOpenAi));
  CHECK_FALSE(streams_in(Dialect::kGeneric));
  CHECK_FALSE(streams_in(Dialect::kAws));
}
