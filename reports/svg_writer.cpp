#include "svg_writer.hpp"

#include <charconv>
#include <cmath>

#include "html_escape.hpp"

namespace stampede {

SvgWriter::SvgWriter(double width, double height, std::string_view label) {
  out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + number(width) + " " +
          number(height) + "\" role=\"img\" aria-label=\"" + html_escape(label) + "\">";
}

std::string SvgWriter::number(double v) {
  if (!std::isfinite(v)) return "0";
  const double rounded = std::round(v * 10) / 10;
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, rounded == 0 ? 0.0 : rounded,
                                       std::chars_format::fixed, 1);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.size() > 2 && s.ends_with(".0")) s.resize(s.size() - 2);
  return s;
}

void SvgWriter::title_element(std::string_view title) {
  if (!title.empty()) out_ += "<title>" + html_escape(title) + "</title>";
}

void SvgWriter::begin_group(std::initializer_list<SvgAttr> attrs, std::string_view title) {
  out_ += "<g";
  for (const auto& a : attrs) {
    out_ += " " + html_escape(a.name) + "=\"" + html_escape(a.value) + "\"";
  }
  out_ += ">";
  title_element(title);
  ++open_groups_;
}

void SvgWriter::end_group() {
  if (open_groups_ == 0) return;
  out_ += "</g>";
  --open_groups_;
}

void SvgWriter::rect(double x, double y, double width, double height, std::string_view title) {
  out_ += "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(width) +
          "\" height=\"" + number(height) + "\"";
  if (title.empty()) {
    out_ += "/>";
    return;
  }
  out_ += ">";
  title_element(title);
  out_ += "</rect>";
}

void SvgWriter::line(double x1, double y1, double x2, double y2) {
  out_ += "<line x1=\"" + number(x1) + "\" y1=\"" + number(y1) + "\" x2=\"" + number(x2) +
          "\" y2=\"" + number(y2) + "\"/>";
}

std::string SvgWriter::points_attr(const std::vector<SvgPoint>& points) {
  std::string s;
  for (const auto& p : points) {
    if (!s.empty()) s += ' ';
    s += number(p.x) + "," + number(p.y);
  }
  return s;
}

void SvgWriter::polyline(const std::vector<SvgPoint>& points) {
  if (points.empty()) return;
  out_ += "<polyline points=\"" + points_attr(points) + "\"/>";
}

void SvgWriter::polygon(const std::vector<SvgPoint>& points, std::string_view title) {
  if (points.empty()) return;
  out_ += "<polygon points=\"" + points_attr(points) + "\"";
  if (title.empty()) {
    out_ += "/>";
    return;
  }
  out_ += ">";
  title_element(title);
  out_ += "</polygon>";
}

void SvgWriter::text(double x, double y, std::string_view text, Anchor anchor, double rotate_deg) {
  out_ += "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\"";
  if (anchor == Anchor::kMiddle) out_ += " text-anchor=\"middle\"";
  if (anchor == Anchor::kEnd) out_ += " text-anchor=\"end\"";
  if (rotate_deg != 0) {
    out_ += " transform=\"rotate(" + number(rotate_deg) + " " + number(x) + " " + number(y) + ")\"";
  }
  out_ += ">" + html_escape(text) + "</text>";
}

std::string SvgWriter::finish() {
  while (open_groups_ > 0) end_group();
  return out_ + "</svg>";
}

}  // namespace stampede
