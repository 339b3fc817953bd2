// What the client is told of a forwarded answer before its body (relayed_answer): the status
// line, the upstream's fields but the hop-by-hop ones, and the framing fakeprovider writes
// itself; and how each piece of the body is framed.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "upstream/relayed_answer.hpp"

using namespace stampede;

namespace {

struct Row {
  const char* name;
  int status;
  std::vector<std::pair<std::string, std::string>> fields;
  std::optional<std::size_t> length;  // the upstream's Content-Length
  std::string body;                   // what came of the body before the head is relayed
  bool ended;
  bool head_request;
  bool http_1_0;
  bool keep_alive;
  std::string head;  // after the status line
  RelayFraming framing;
};

}  // namespace

TEST_CASE("a forwarded answer's head: the upstream's fields, fakeprovider's framing") {
  const std::vector<Row> rows = {
      {"the upstream's length",
       200,
       {{"Content-Type", "text/plain"}, {"Content-Length", "5"}},
       5,
       "",
       false,
       false,
       false,
       true,
       "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n",
       RelayFraming::kLength},
      {"no length, more to come: chunked",
       200,
       {{"Content-Type", "text/event-stream"}},
       std::nullopt,
       "data: 1\n\n",
       false,
       false,
       false,
       true,
       "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
       RelayFraming::kChunked},
      {"no length, all of it in: its own",
       200,
       {},
       std::nullopt,
       "hello",
       true,
       false,
       false,
       true,
       "Content-Length: 5\r\n\r\n",
       RelayFraming::kLength},
      {"no length, to an HTTP/1.0 client: up to the close",
       200,
       {},
       std::nullopt,
       "",
       false,
       false,
       true,
       true,
       "Connection: close\r\n\r\n",
       RelayFraming::kClose},
      {"HEAD: the upstream's length, no body",
       200,
       {{"Content-Length", "4096"}},
       4096,
       "",
       true,
       true,
       false,
       true,
       "Content-Length: 4096\r\n\r\n",
       RelayFraming::kNone},
      {"304: the upstream's length, no body",
       304,
       {{"ETag", "\"v1\""}},
       10,
       "",
       true,
       false,
       false,
       true,
       "ETag: \"v1\"\r\nContent-Length: 10\r\n\r\n",
       RelayFraming::kNone},
      {"204: no body, no length",
       204,
       {},
       std::nullopt,
       "",
       true,
       false,
       false,
       true,
       "\r\n",
       RelayFraming::kNone},
      {"hop-by-hop fields and those Connection names stay behind",
       200,
       {{"Connection", "keep-alive, X-Hop"},
        {"X-Hop", "1"},
        {"Keep-Alive", "timeout=5"},
        {"Transfer-Encoding", "chunked"},
        {"Upgrade", "h2c"},
        {"X-End", "kept"}},
       std::nullopt,
       "",
       false,
       false,
       false,
       true,
       "X-End: kept\r\nTransfer-Encoding: chunked\r\n\r\n",
       RelayFraming::kChunked},
      {"the client asked for close",
       200,
       {},
       2,
       "",
       false,
       false,
       false,
       false,
       "Content-Length: 2\r\nConnection: close\r\n\r\n",
       RelayFraming::kLength},
      {"an HTTP/1.0 client kept alive",
       200,
       {},
       2,
       "",
       false,
       false,
       true,
       true,
       "Content-Length: 2\r\nConnection: Keep-Alive\r\n\r\n",
       RelayFraming::kLength},
  };
  for (const auto& row : rows) {
    CAPTURE(std::string(row.name));
    UpstreamExchange x;
    x.status = row.status;
    x.answer_headers = row.fields;
    x.answer_size = row.length;
    x.answer_body = row.body;
    x.ended = row.ended;
    const RelayedHead h = relayed_head(x, row.head_request, row.http_1_0, row.keep_alive);
    const std::string line =
        "HTTP/1.1 " + std::to_string(row.status) + " " + std::string(reason_phrase(row.status));
    CHECK(h.bytes == line + "\r\n" + row.head);
    CHECK(h.framing == row.framing);
  }
}

TEST_CASE("a forwarded answer cut short is not given its own length") {
  UpstreamExchange x;
  x.status = 200;
  x.answer_body = "hel";
  x.fail(UpstreamFailure::kBroken, "cut");
  const RelayedHead h = relayed_head(x, false, false, true);
  CHECK(h.framing == RelayFraming::kChunked);
  CHECK(h.bytes.find("Content-Length") == std::string::npos);
}

TEST_CASE("a forwarded body's pieces: as they are, or one chunk each") {
  std::string out;
  append_relayed(out, "hello", RelayFraming::kLength);
  CHECK(out == "hello");
  out.clear();
  append_relayed(out, std::string(26, 'a'), RelayFraming::kChunked);
  CHECK(out == "1a\r\n" + std::string(26, 'a') + "\r\n");
  out.clear();
  // An empty chunk would end the body.
  append_relayed(out, "", RelayFraming::kChunked);
  CHECK(out.empty());
  CHECK(relayed_end(RelayFraming::kChunked) == "0\r\n\r\n");
  CHECK(relayed_end(RelayFraming::kLength).empty());
  CHECK(reason_phrase(429) == "Too Many Requests");
  CHECK(reason_phrase(599) == "Unknown");
}
