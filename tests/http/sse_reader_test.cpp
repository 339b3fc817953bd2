// The event-stream reader a streaming client reads an LLM's answer with (http/sse_reader), by
// tables: each stream fed whole, a byte at a time, and split in two at every byte.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sse_reader.hpp"

using namespace stampede;

namespace {

// "name|data" per event dispatched, from the stream fed as these pieces.
std::vector<std::string> read_pieces(const std::vector<std::string>& pieces) {
  SseReader reader;
  std::vector<std::string> events;
  for (const auto& piece : pieces) {
    reader.feed(piece, [&](const SseReader::Event& e) {
      events.push_back(std::string(e.name) + "|" + std::string(e.data));
    });
  }
  return events;
}

struct Row {
  std::string stream;
  std::vector<std::string> events;
};

const std::vector<Row> kRows{
    // Anthropic's named events, LF.
    {"event: message_start\ndata: {\"type\":\"message_start\"}\n\n"
     "event: content_block_delta\ndata: {\"t\":1}\n\n",
     {"message_start|{\"type\":\"message_start\"}", "content_block_delta|{\"t\":1}"}},
    // OpenAI's unnamed data lines, CRLF, and the end marker.
    {"data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n", {"message|{\"a\":1}", "message|[DONE]"}},
    // Bare CR line ends.
    {"event: ping\rdata: x\r\r", {"ping|x"}},
    // Comments are skipped, whatever they hold; a block of comments dispatches nothing.
    {": keep-alive\n\n:data: no\ndata: yes\n\n", {"message|yes"}},
    // Several data lines are one event's lines, joined by LF; a space after the colon is not
    // the value's, a second one is.
    {"data:one\ndata:  two\ndata\n\n", {"message|one\n two\n"}},
    // id and retry and unknown fields are read past; a name without data dispatches nothing
    // and does not carry over to the next block.
    {"event: lost\nid: 7\nretry: 10\nfoo: bar\n\ndata: kept\n\n", {"message|kept"}},
    // An empty data line is data: the event dispatches with empty data.
    {"event: e\ndata:\n\n", {"e|"}},
    // An event not yet ended by its blank line is not dispatched.
    {"data: whole\n\ndata: partial\n", {"message|whole"}},
};

}  // namespace

TEST_CASE("SseReader: events, names, comments and multi-line data, whole and byte by byte") {
  for (const auto& row : kRows) {
    CAPTURE(row.stream);
    CHECK(read_pieces({row.stream}) == row.events);
    std::vector<std::string> bytes;
    for (const char c : row.stream) bytes.emplace_back(1, c);
    CHECK(read_pieces(bytes) == row.events);
  }
}

TEST_CASE("SseReader: a stream split in two at every byte reads the same events") {
  for (const auto& row : kRows) {
    for (std::size_t cut = 0; cut <= row.stream.size(); ++cut) {
      CAPTURE(row.stream);
      CAPTURE(cut);
      CHECK(read_pieces({row.stream.substr(0, cut), row.stream.substr(cut)}) == row.events);
    }
  }
}

TEST_CASE("SseReader: a CR ending one read and an LF starting the next are one line end") {
  // Read as two line ends, the LF would be a blank line and dispatch "a" with no "b".
  CHECK(read_pieces({"data: a\r", "\ndata: b\n\n"}) == std::vector<std::string>{"message|a\nb"});
}

TEST_CASE("SseReader: a line past the bound fails the stream, and nothing more is read") {
  SseReader reader;
  int events = 0;
  const auto count = [&](const SseReader::Event&) { ++events; };
  CHECK(reader.feed("data: " + std::string(SseReader::kMaxLine, 'x'), count) == false);
  CHECK(reader.failed());
  CHECK(reader.feed("\n\ndata: late\n\n", count) == false);
  CHECK(events == 0);
}
