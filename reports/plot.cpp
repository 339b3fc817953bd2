#include "plot.hpp"

#include <algorithm>
#include <cmath>

#include "charts.hpp"
#include "report_format.hpp"

namespace stampede {
namespace {

// The y axis always starts at zero and ends on a tick, so panels sharing a maximum share
// their ticks too.
double rounded_top(double y_max) {
  if (!(y_max > 0)) return 1;
  const double step = nice_step(y_max, 5);
  return std::ceil(y_max / step - 1e-9) * step;
}

}  // namespace

double nice_step(double span, double target_ticks) {
  if (!(span > 0)) return 1;
  const double raw = span / target_ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0}) {
    if (raw <= m * magnitude * (1 + 1e-9)) return m * magnitude;
  }
  return 10 * magnitude;
}

std::vector<Tick> linear_ticks(double max, double target_ticks) {
  std::vector<Tick> ticks;
  const double step = nice_step(max, target_ticks);
  for (int i = 0; i * step <= max * (1 + 1e-9); ++i) {
    ticks.push_back({i * step, format_tick(i * step)});
  }
  return ticks;
}

Plot::Plot(std::string_view label, double x_min, double x_max, double y_max)
    : svg_(kWidth, kHeight, label),
      x_min_(x_min),
      x_max_(x_max > x_min ? x_max : x_min + 1),
      y_max_(rounded_top(y_max)) {}

void Plot::axes(const std::vector<Tick>& x_ticks, std::string_view x_label,
                std::string_view y_label) {
  const auto y_ticks = linear_ticks(y_max_, 5);
  svg_.begin_group({{"stroke", kGrid}, {"stroke-width", "1"}, {"shape-rendering", "crispEdges"}});
  for (const auto& t : y_ticks) svg_.line(kLeft, y(t.at), kRight, y(t.at));
  svg_.end_group();
  svg_.begin_group({{"font-family", "system-ui, sans-serif"}, {"font-size", "11"}, {"fill", kInk}});
  for (const auto& t : y_ticks) {
    svg_.text(kLeft - 6, y(t.at) + 4, t.label, SvgWriter::Anchor::kEnd);
  }
  for (const auto& t : x_ticks) {
    // A label at the plot's right edge would hang over the panel's.
    const double half_width = 3.2 * static_cast<double>(t.label.size());
    svg_.text(std::min(x(t.at), kWidth - 2 - half_width), kBottom + 15, t.label,
              SvgWriter::Anchor::kMiddle);
  }
  svg_.text((kLeft + kRight) / 2, kHeight - 8, x_label, SvgWriter::Anchor::kMiddle);
  svg_.text(15, (kTop + kBottom) / 2, y_label, SvgWriter::Anchor::kMiddle, -90);
  svg_.end_group();
  svg_.begin_group({{"stroke", kInk}, {"stroke-width", "1"}, {"shape-rendering", "crispEdges"}});
  svg_.line(kLeft, kBottom, kRight, kBottom);
  svg_.line(kLeft, kTop, kLeft, kBottom);
  for (const auto& t : x_ticks) svg_.line(x(t.at), kBottom, x(t.at), kBottom + 4);
  svg_.end_group();
}

void Plot::note(std::string_view text) {
  svg_.begin_group(
      {{"font-family", "system-ui, sans-serif"}, {"font-size", "13"}, {"fill", "#8a8f98"}});
  svg_.text((kLeft + kRight) / 2, (kTop + kBottom) / 2, text, SvgWriter::Anchor::kMiddle);
  svg_.end_group();
}

void Plot::begin_labels(const char* color) {
  svg_.begin_group({{"font-family", "system-ui, sans-serif"},
                    {"font-size", "10"},
                    {"fill", color},
                    {"stroke", "#fff"},
                    {"stroke-width", "3"},
                    {"stroke-linejoin", "round"},
                    {"paint-order", "stroke"}});
}

void Plot::label(double x, double y, std::string_view text, const char* color,
                 SvgWriter::Anchor anchor) {
  begin_labels(color);
  svg_.text(x, y, text, anchor);
  svg_.end_group();
}

void Plot::label_beside(double x, double gap, double y, std::string_view text, const char* color) {
  if (x > (kLeft + kRight) / 2) {
    label(x - gap, y, text, color, SvgWriter::Anchor::kEnd);
  } else {
    label(x + gap, y, text, color, SvgWriter::Anchor::kStart);
  }
}

std::string placeholder_chart(std::string_view message) {
  Plot p(message, 0, 1, 1);
  p.note(message);
  return p.finish();
}

std::string legend_swatch(const LegendEntry& entry) {
  SvgWriter svg(18, 12, entry.name);
  switch (entry.kind) {
    case LegendEntry::Kind::kArea:
      svg.begin_group({{"fill", entry.color}});
      svg.rect(2, 1, 14, 10);
      break;
    case LegendEntry::Kind::kShade:
      svg.begin_group({{"fill", entry.color}, {"fill-opacity", "0.2"}});
      svg.rect(2, 1, 14, 10);
      break;
    case LegendEntry::Kind::kLine:
      svg.begin_group({{"stroke", entry.color}, {"stroke-width", "2"}});
      svg.line(1, 6, 17, 6);
      break;
    case LegendEntry::Kind::kDashed:
      svg.begin_group(
          {{"stroke", entry.color}, {"stroke-width", "2"}, {"stroke-dasharray", "4 2"}});
      svg.line(1, 6, 17, 6);
      break;
  }
  return svg.finish();
}

}  // namespace stampede
