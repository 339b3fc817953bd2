#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "body_framing.hpp"

using stampede::BodyFraming;

namespace {

struct Fed {
  std::size_t used = 0;
  std::string kept;
  bool done = false;
  bool failed = false;
  std::string why;
};

// Fed whole, or a byte at a time: the same bytes used and the same content either way.
Fed feed(BodyFraming body, const std::string& input, bool bytewise,
         std::size_t keep_limit = 1 << 20) {
  Fed f;
  if (!bytewise) {
    f.used = body.feed(input, &f.kept, keep_limit);
  } else {
    for (std::size_t i = 0; i < input.size() && !body.done() && !body.failed(); ++i)
      f.used += body.feed(input.substr(i, 1), &f.kept, keep_limit);
  }
  f.done = body.done();
  f.failed = body.failed();
  f.why = body.why();
  return f;
}

}  // namespace

TEST_CASE("request body: read to its end, by length or chunked, the next request left") {
  struct Case {
    const char* name;
    BodyFraming body;
    std::string input;
    std::size_t used;
    std::string content;
  };
  const std::vector<Case> cases{
      {"a length", BodyFraming::of_length(5), "helloGET", 5, "hello"},
      {"no body", BodyFraming::of_length(0), "GET", 0, ""},
      {"chunked", BodyFraming::chunked(), "5\r\nhello\r\n0\r\n\r\nGET", 15, "hello"},
      {"two chunks, hex sizes", BodyFraming::chunked(), "3\r\nhel\r\nA\r\nlo, world!\r\n0\r\n\r\n",
       28, "hello, world!"},
      {"an extension", BodyFraming::chunked(), "5;ext=\"a b\"\r\nhello\r\n0;x\r\n\r\n", 27,
       "hello"},
      {"trailer fields", BodyFraming::chunked(), "5\r\nhello\r\n0\r\nX-T: 1\r\nY: 2\r\n\r\nGET", 29,
       "hello"},
      {"an empty chunked body", BodyFraming::chunked(), "0\r\n\r\n", 5, ""},
      {"leading zeros", BodyFraming::chunked(), "0005\r\nhello\r\n000\r\n\r\n", 20, "hello"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.name));
    for (const bool bytewise : {false, true}) {
      CAPTURE(bytewise);
      const Fed f = feed(c.body, c.input, bytewise);
      CHECK(f.done);
      CHECK_FALSE(f.failed);
      CHECK(f.used == c.used);
      CHECK(f.kept == c.content);
    }
  }
}

TEST_CASE("request body: a chunked body that breaks its grammar fails, and says why") {
  const std::string long_line(BodyFraming::kMaxChunkLine, 'x');
  const std::string trailer = "X: " + std::string(BodyFraming::kMaxTrailers, 'x') + "\r\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"x\r\n", "bad chunk size"},                                       // not a size
      {"\r\n", "bad chunk size"},                                        // no size
      {";x\r\n", "bad chunk size"},                                      // an extension without one
      {"1000000000000000\r\n", "chunk size longer than 15 hex digits"},  // past any body
      {"5\r\nhelloXX", "chunk data longer than its size"},               // no CR LF after the data
      {"5\nhello\r\n", "LF without CR"},                                 // a bare LF after the size
      {"5\r\nhello\n", "LF without CR"},                                 // and after the data
      {"5\r\nhello\r\n0\r\n\r\r", "CR not followed by LF"},              // the last LF missing
      {"5\r\nhello\r\n0\r\n(\r\n", "bad trailer field"},  // a trailer that is not a field
      {"0\r\nX: a\x01\r\n\r\n", "bad trailer field"},     // a control character in one
      {"5;a\x7f\r\n", "bad chunk extension"},
      {"5;" + long_line + "\r\n", "chunk line longer than 4 KiB"},
      {"0\r\n" + trailer + "\r\n", "trailers longer than 16 KiB"},
  };
  for (const auto& [input, why] : cases) {
    CAPTURE(input.substr(0, 40));
    for (const bool bytewise : {false, true}) {
      const Fed f = feed(BodyFraming::chunked(), input, bytewise);
      CHECK(f.failed);
      CHECK_FALSE(f.done);
      CHECK(f.why == why);
    }
  }
}

TEST_CASE("request body: a chunk line or the trailers just within their bounds are read") {
  // A size line of kMaxChunkLine bytes, its CR LF included; trailers of kMaxTrailers.
  const std::string extension(BodyFraming::kMaxChunkLine - 4, 'x');
  const std::string trailer = "X: " + std::string(BodyFraming::kMaxTrailers - 7, 'x') + "\r\n";
  for (const std::string& input :
       {"5;" + extension + "\r\nhello\r\n0\r\n\r\n", "0\r\n" + trailer + "\r\n"}) {
    const Fed f = feed(BodyFraming::chunked(), input, false);
    CHECK(f.done);
    CHECK(f.used == input.size());
  }
}

TEST_CASE("request body: a lone LF, or a control byte in an extension or a trailer, fails") {
  // libcurl takes all three; a reader in front of another must not (RFC 9112 7.1).
  const std::pair<std::string, std::string_view> rows[] = {
      {"5;x\nhello\n0\nX-T: 1\r\nY: 2\n\nGET", "LF without CR"},
      {"5;a\x01\x7f\r\nhello\r\n0\r\n\r\nGET", "bad chunk extension"},
      {"5\r\nhello\r\n0\r\n(\x02\r\n\r\nGET", "bad trailer field"},
  };
  for (const auto& [input, why] : rows) {
    CAPTURE(input);
    for (const bool bytewise : {false, true}) {
      const Fed f = feed(BodyFraming::chunked(), input, bytewise);
      CHECK(f.failed);
      CHECK(f.why == why);
    }
  }
}

TEST_CASE("request body: incomplete until its end, its content kept up to the limit") {
  const Fed partial = feed(BodyFraming::chunked(), "5\r\nhel", false);
  CHECK_FALSE(partial.done);
  CHECK_FALSE(partial.failed);
  CHECK(partial.used == 6);
  CHECK(partial.kept == "hel");
  const Fed short_of_length = feed(BodyFraming::of_length(10), "hello", false);
  CHECK_FALSE(short_of_length.done);
  CHECK(short_of_length.used == 5);
  const Fed limited = feed(BodyFraming::chunked(), "5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n", true, 7);
  CHECK(limited.done);
  CHECK(limited.kept == "helloab");
  BodyFraming unkept = BodyFraming::of_length(3);
  CHECK(unkept.feed("abc", nullptr, 0) == 3);
  CHECK(unkept.done());
}
