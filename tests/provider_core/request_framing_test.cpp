#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/request_framing.hpp"

using namespace stampede;

namespace {

struct Case {
  const char* name;
  std::vector<std::string_view> transfer_encoding;
  std::vector<std::string_view> content_length;
  int status;  // 0: the body is read
  bool http_1_0 = false;
};

RequestFraming framing(const Case& c) {
  RequestFraming f;
  f.http_1_0 = c.http_1_0;
  f.transfer_encoding = c.transfer_encoding;
  f.content_length_fields = c.content_length.size();
  if (!c.content_length.empty()) f.content_length = c.content_length.front();
  return f;
}

void check_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    CAPTURE(std::string(c.name));
    const FramingVerdict v = check_framing(framing(c));
    CHECK(v.status == c.status);
    CHECK(v.reason.empty() == (c.status == 0));  // a refusal says why
  }
}

}  // namespace

TEST_CASE("check_framing: Transfer-Encoding is read only when it is chunked alone") {
  check_cases({
      {"chunked", {"chunked"}, {}, 0},
      {"Chunked, any case", {"CHUNKED"}, {}, 0},
      {"leading OWS, as the head reader drops it", {" chunked"}, {}, 0},
      // RFC 9112 6.1: the final coding must be chunked, else 400.
      {"identity", {"identity"}, {}, 400},
      {"gzip alone", {"gzip"}, {}, 400},
      {"chunked, gzip", {"chunked, gzip"}, {}, 400},
      {"empty", {""}, {}, 400},
      {"only commas", {" , ,"}, {}, 400},
      {"chunked twice", {"chunked, chunked"}, {}, 400},
      {"chunked twice in two fields", {"chunked", "chunked"}, {}, 400},
      // A coding before chunked: one this server does not implement.
      {"gzip, chunked", {"gzip, chunked"}, {}, 501},
      {"gzip then chunked in two fields", {"gzip", "chunked"}, {}, 501},
      {"deflate;q=1, chunked", {"deflate;q=1, chunked"}, {}, 501},
      // RFC-valid spellings of chunked alone that the body reader is not handed: 400, not a
      // body read without end.
      {"trailing OWS", {"chunked "}, {}, 400},
      {"an empty element", {"chunked,"}, {}, 400},
      {"a parameter", {"chunked;x=1"}, {}, 400},
      {"an empty field beside it", {"chunked", ""}, {}, 400},
      // The smuggling shapes.
      {"with Content-Length", {"chunked"}, {"5"}, 400},
      {"in HTTP/1.0", {"chunked"}, {}, 400, true},
  });
}

TEST_CASE("check_framing: one Content-Length of digits; a repeat is refused even when equal") {
  check_cases({
      {"none", {}, {}, 0},
      {"5", {}, {"5"}, 0},
      {"0", {}, {"0"}, 0},
      {"in HTTP/1.0", {}, {"5"}, 0, true},
      {"OWS around it", {}, {" 5\t"}, 0},
      {"two differing", {}, {"5", "10"}, 400},
      {"two equal", {}, {"5", "5"}, 400},
      {"a list", {}, {"5, 10"}, 400},
      {"an equal list", {}, {"5, 5"}, 400},
      {"negative", {}, {"-1"}, 400},
      {"hex", {}, {"0x5"}, 400},
      {"empty", {}, {""}, 400},
  });
}

TEST_CASE("declared_length: the length a readable Content-Length says, OWS as the check takes it") {
  struct Row {
    const char* name;
    std::vector<std::string_view> content_length;
    std::optional<std::uint64_t> length;
  };
  for (const Row& row : {
           Row{"none", {}, std::nullopt},
           Row{"5", {"5"}, 5},
           Row{"0", {"0"}, 0},
           Row{"OWS around it", {" 5\t"}, 5},
           // More digits than 64 bits hold: longer than any limit.
           Row{"past 2^64", {"18446744073709551616"}, std::numeric_limits<std::uint64_t>::max()},
       }) {
    CAPTURE(std::string(row.name));
    const Case c{row.name, {}, row.content_length, 0};
    REQUIRE(check_framing(framing(c)).status == 0);
    CHECK(declared_length(framing(c)) == row.length);
  }
}
