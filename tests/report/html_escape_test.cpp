#include <doctest/doctest.h>

#include <string>

#include "html_escape.hpp"

using namespace stampede;

TEST_CASE("markup characters become entities, everything else passes through") {
  struct Case {
    std::string in;
    std::string out;
  };
  const Case cases[] = {
      {"", ""},
      {"plain text 123", "plain text 123"},
      {"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
      {"a & b", "a &amp; b"},
      {"\"quoted\" 'single'", "&quot;quoted&quot; &#39;single&#39;"},
      {"&lt;", "&amp;lt;"},
      {"tab\tnewline\ncr\r", "tab\tnewline\ncr\r"},
      {"caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x90\x83", "caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x90\x83"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.in);
    CHECK(html_escape(c.in) == c.out);
  }
}

TEST_CASE("what XML forbids becomes U+FFFD, so a parser never stops on a label") {
  const std::string r = "\xEF\xBF\xBD";
  struct Case {
    std::string in;
    std::string out;
  };
  const Case cases[] = {
      {std::string("nul\0x", 5), "nul" + r + "x"},
      {"bell\x07", "bell" + r},
      {"lone continuation \x80", "lone continuation " + r},
      {"truncated \xC3", "truncated " + r},
      {"overlong \xC0\xAF", "overlong " + r + r},
      {"surrogate \xED\xA0\x80", "surrogate " + r + r + r},
      {"non-character \xEF\xBF\xBE", "non-character " + r + r + r},
      {"past U+10FFFF \xF4\x90\x80\x80", "past U+10FFFF " + r + r + r + r},
      {"invalid lead \xFF<", "invalid lead " + r + "&lt;"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.in);
    CHECK(html_escape(c.in) == c.out);
  }
}
