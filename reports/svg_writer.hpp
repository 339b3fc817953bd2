#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace stampede {

struct SvgPoint {
  double x = 0;
  double y = 0;
};

// A presentation attribute: fill, stroke, class, font-size ... Its value is escaped on output.
struct SvgAttr {
  std::string_view name;
  std::string value;
};

// Writes one inline SVG element, FlameGraph-style: every coordinate with the same fixed
// precision, elements in the order drawn, every string escaped. An SVG with nothing drawn is
// still a valid one, so an empty run gives an empty chart, never a broken page.
class SvgWriter {
 public:
  // The size is the viewBox; the page scales the chart to its column. The label is what
  // assistive technology reads and the tooltip of the chart's background.
  SvgWriter(double width, double height, std::string_view label);

  // Groups carry the styling of what they hold; a title becomes the native tooltip of
  // everything inside.
  void begin_group(std::initializer_list<SvgAttr> attrs, std::string_view title = {});
  void end_group();

  void rect(double x, double y, double width, double height, std::string_view title = {});
  void line(double x1, double y1, double x2, double y2);
  void polyline(const std::vector<SvgPoint>& points);
  void polygon(const std::vector<SvgPoint>& points, std::string_view title = {});
  enum class Anchor { kStart, kMiddle, kEnd };
  void text(double x, double y, std::string_view text, Anchor anchor = Anchor::kStart,
            double rotate_deg = 0);

  // The document, with every open group closed.
  std::string finish();

  // The fixed precision of every coordinate: one decimal, no trailing zero, no "-0".
  static std::string number(double v);

 private:
  void title_element(std::string_view title);
  static std::string points_attr(const std::vector<SvgPoint>& points);

  std::string out_;
  int open_groups_ = 0;
};

}  // namespace stampede
