// The live dashboards' event-stream text (core/event_stream): what a reader (an EventSource)
// parses, by tables.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "event_stream.hpp"

using namespace stampede;

TEST_CASE("sse_event: the id, a data line per line of data, the blank line that dispatches") {
  struct Row {
    std::uint64_t id;
    std::string data;
    std::string framed;
  };
  const std::vector<Row> rows{
      {4, R"({"seq":4,"tenant":"a\nb"})", "id: 4\ndata: {\"seq\":4,\"tenant\":\"a\\nb\"}\n\n"},
      {0, "", "id: 0\ndata: \n\n"},
      // A reader splits lines at LF, CR and CRLF, and joins a block's data lines with LF: no
      // line of the data may end the event early or start a field of its own.
      {7, "one\ntwo", "id: 7\ndata: one\ndata: two\n\n"},
      {7, "one\r\ntwo\rthree", "id: 7\ndata: one\ndata: two\ndata: three\n\n"},
      {7, "id: 9\n\nretry: 1", "id: 7\ndata: id: 9\ndata: \ndata: retry: 1\n\n"},
      {7, "last\n", "id: 7\ndata: last\ndata: \n\n"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.data);
    CHECK(sse_event(row.id, row.data) == row.framed);
  }
}

TEST_CASE("sse_retry and sse_padding: blocks a reader dispatches no event for") {
  CHECK(sse_retry(2000) == "retry: 2000\n\n");
  for (std::size_t bytes : {3u, 4u, 1000u, 64u * 1024}) {
    const auto pad = sse_padding(bytes);
    CAPTURE(bytes);
    CHECK(pad.size() == bytes);
    CHECK(pad.front() == ':');  // a comment line
    CHECK(pad.ends_with("\n\n"));
    CHECK(pad.find_first_not_of(' ', 1) == bytes - 2);
  }
  CHECK(sse_padding(0) == ":\n\n");  // never less than a whole comment block
}
