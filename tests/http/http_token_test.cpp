#include <doctest/doctest.h>

#include <string_view>
#include <utility>
#include <vector>

#include "http_token.hpp"

using stampede::trim_ows;

TEST_CASE("trim_ows: the spaces and tabs around a field value go, nothing else does") {
  const std::vector<std::pair<std::string_view, std::string_view>> cases{
      {"k", "k"},
      {"k ", "k"},
      {" k", "k"},
      {"\tk\t", "k"},
      {" \t k \t ", "k"},
      {"a b", "a b"},  // inside the value it stays
      {"a\tb ", "a\tb"},
      {"", ""},
      {" ", ""},
      {" \t\t ", ""},
      {"k\r", "k\r"},  // CR, LF, NUL and the like are not OWS
      {"\nk", "\nk"},
      {std::string_view("k\0", 2), std::string_view("k\0", 2)},
      {"\xc2\xa0k", "\xc2\xa0k"},  // nor a no-break space
  };
  for (const auto& [in, want] : cases) {
    CAPTURE(in);
    CHECK(trim_ows(in) == want);
  }
}
