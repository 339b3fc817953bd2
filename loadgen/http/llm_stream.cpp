#include "http/llm_stream.hpp"

#include <nlohmann/json.hpp>

namespace stampede {

bool streams_in(Dialect dialect) {
  return dialect == Dialect::kAnthropic || dialect == Dialect::kOpenAi;
}

void StreamAnswerReader::reset(Dialect dialect) {
  *this = StreamAnswerReader(dialect);
}

std::int64_t StreamAnswerReader::feed(std::string_view bytes) {
  const std::int64_t before = tokens_;
  // What follows the end is none of the answer's.
  if (end_ != End::kOpen) return 0;
  if (!sse_.feed(bytes, [this](const SseReader::Event& e) { on_event(e); })) end_ = End::kBroken;
  return tokens_ - before;
}

namespace {

// An OpenAI chunk's content tokens: one when its first choice's delta has text (the role
// chunk's content is "", the last chunk's delta is empty, the usage chunk has no choices).
bool openai_token(std::string_view data) {
  const auto chunk = nlohmann::json::parse(data, nullptr, false);
  if (!chunk.is_object()) return false;
  const auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty()) return false;
  const auto& delta = (*choices)[0].value("delta", nlohmann::json::object());
  const auto content = delta.find("content");
  return content != delta.end() && content->is_string() &&
         !content->get_ref<const std::string&>().empty();
}

}  // namespace

void StreamAnswerReader::on_event(const SseReader::Event& e) {
  if (end_ != End::kOpen) return;
  if (dialect_ == Dialect::kOpenAi) {
    if (e.data == "[DONE]") {
      end_ = End::kEnded;
    } else if (openai_token(e.data)) {
      ++tokens_;
    }
    return;
  }
  if (e.name == "content_block_delta") {
    ++tokens_;
  } else if (e.name == "message_stop") {
    end_ = End::kEnded;
  } else if (e.name == "error") {
    end_ = End::kError;
  }
}

}  // namespace stampede
