#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "svg_writer.hpp"

using namespace stampede;

TEST_CASE("coordinates have one fixed precision: one decimal, no trailing zero, no -0") {
  struct Case {
    double in;
    const char* out;
  };
  const Case cases[] = {{0, "0"},      {3, "3"},           {3.04, "3"},
                        {3.06, "3.1"}, {-0.04, "0"},       {-2.5, "-2.5"},
                        {640, "640"},  {123.456, "123.5"}, {1e9, "1000000000"},
                        {NAN, "0"},    {INFINITY, "0"}};
  for (const auto& c : cases) {
    CAPTURE(c.in);
    CHECK(SvgWriter::number(c.in) == c.out);
  }
}

TEST_CASE("an SVG with nothing drawn is still a whole element") {
  SvgWriter svg(640, 262, "empty");
  CHECK(svg.finish() ==
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 262\" role=\"img\" "
        "aria-label=\"empty\"></svg>");
}

TEST_CASE("elements come out in the order drawn, groups closed, strings escaped") {
  SvgWriter svg(10, 10, "a \"label\"");
  svg.begin_group({{"fill", "#fff\"/><script>"}}, "tip <b>");
  svg.rect(1, 2, 3.25, 4, "t=1 s: 5 & more");
  svg.line(0, 0, 10, 10);
  svg.polyline({{0, 0}, {1.5, 2}});
  svg.polyline({});
  svg.text(5, 5, "<script>alert(1)</script>", SvgWriter::Anchor::kMiddle, -90);
  const auto out = svg.finish();
  CHECK(out ==
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\" role=\"img\" "
        "aria-label=\"a &quot;label&quot;\">"
        "<g fill=\"#fff&quot;/&gt;&lt;script&gt;\"><title>tip &lt;b&gt;</title>"
        "<rect x=\"1\" y=\"2\" width=\"3.3\" height=\"4\"><title>t=1 s: 5 &amp; more</title></rect>"
        "<line x1=\"0\" y1=\"0\" x2=\"10\" y2=\"10\"/>"
        "<polyline points=\"0,0 1.5,2\"/>"
        "<text x=\"5\" y=\"5\" text-anchor=\"middle\" transform=\"rotate(-90 5 5)\">"
        "&lt;script&gt;alert(1)&lt;/script&gt;</text></g></svg>");
}

TEST_CASE("ending a group that is not open changes nothing") {
  SvgWriter svg(1, 1, "x");
  svg.end_group();
  CHECK(svg.finish().ends_with("aria-label=\"x\"></svg>"));
}
