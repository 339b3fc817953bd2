#include <doctest/doctest.h>

#include <string>

#include "utf8.hpp"

using namespace stampede;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

struct Row {
  const char* name;
  std::string in;
  std::string out;
};

}  // namespace

TEST_CASE("valid_utf8 keeps well-formed text and replaces each ill-formed subpart with U+FFFD") {
  const Row rows[] = {
      {"ascii", "tenant-1", "tenant-1"},
      {"empty", "", ""},
      {"two, three and four bytes", "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80",
       "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"},
      {"a lone continuation byte", "a\x80z", "a" + kFffd + "z"},
      {"0xFF", "\xFF", kFffd},
      {"overlong two-byte form of '/'", "\xC0\xAF", kFffd + kFffd},
      {"overlong three-byte form", "\xE0\x80\xAF", kFffd + kFffd + kFffd},
      {"a surrogate", "\xED\xA0\x80", kFffd + kFffd + kFffd},
      {"above U+10FFFF", "\xF4\x90\x80\x80", kFffd + kFffd + kFffd + kFffd},
      {"truncated at the end", "ok\xE2\x82", "ok" + kFffd},
      {"truncated before ASCII", "\xF0\x9F\x98z", kFffd + "z"},
      {"U+10FFFF itself", "\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.name);
    CHECK(valid_utf8(r.in) == r.out);
  }
}
