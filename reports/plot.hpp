#pragma once

// The frame every chart panel is drawn in: its size, axes, ticks and labels. Internal to the
// report library; the charts draw their data through it (charts.hpp is the public side).

#include <string>
#include <string_view>
#include <vector>

#include "svg_writer.hpp"

namespace stampede {

// The viewBox of every panel and its plot area; the page scales panels to their column.
inline constexpr double kWidth = 640;
inline constexpr double kHeight = 262;
inline constexpr double kLeft = 62;
inline constexpr double kRight = 626;
inline constexpr double kTop = 14;
inline constexpr double kBottom = 218;

inline constexpr const char* kInk = "#3d4451";
inline constexpr const char* kGrid = "#e3e6ea";
inline constexpr const char* kAllowanceColor = "#15171a";
inline constexpr const char* kCapacityColor = "#b8232f";
inline constexpr const char* kOutageColor = "#d64545";

// A 1, 2, 2.5 or 5 times a power of ten that cuts the span into about target_ticks steps.
double nice_step(double span, double target_ticks);

struct Tick {
  double at;
  std::string label;
};

std::vector<Tick> linear_ticks(double max, double target_ticks);

// A plot area with its axes, grid and labels drawn; the chart draws its data through x()
// and y().
class Plot {
 public:
  Plot(std::string_view label, double x_min, double x_max, double y_max);

  SvgWriter& svg() { return svg_; }
  double x_min() const { return x_min_; }
  double x(double v) const { return kLeft + (v - x_min_) / (x_max_ - x_min_) * (kRight - kLeft); }
  double y(double v) const { return kBottom - v / y_max_ * (kBottom - kTop); }
  // The drawn top of the y axis (y_max rounded up to a tick): what is taller is cut.
  double y_top() const { return y_max_; }

  void axes(const std::vector<Tick>& x_ticks, std::string_view x_label, std::string_view y_label);

  // A note across the plot area: why a panel is empty.
  void note(std::string_view text);

  // Small labels over the data (the allowance, the peak, the percentiles) get a white halo,
  // so they stay readable wherever the data runs. begin_labels opens a group for several
  // (close it with svg().end_group()); label draws one in a group of its own.
  void begin_labels(const char* color);
  void label(double x, double y, std::string_view text, const char* color,
             SvgWriter::Anchor anchor = SvgWriter::Anchor::kStart);
  // A label beside the point at x, gap away from it, on the side with more room: a mark in
  // the right half of the plot is labelled to its left.
  void label_beside(double x, double gap, double y, std::string_view text, const char* color);

  std::string finish() { return svg_.finish(); }

 private:
  SvgWriter svg_;
  double x_min_;
  double x_max_;
  double y_max_;
};

}  // namespace stampede
