#include "sparkline.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "report_format.hpp"

namespace stampede {

std::string sparkline(const std::vector<double>& values) {
  static constexpr std::array<const char*, 8> kBlocks{"\u2581", "\u2582", "\u2583", "\u2584",
                                                      "\u2585", "\u2586", "\u2587", "\u2588"};
  const double top = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  std::string out;
  for (double v : values) {
    if (!(v > 0) || !(top > 0)) {
      out += ' ';
      continue;
    }
    const auto level = std::clamp(static_cast<int>(std::ceil(v / top * 8)), 1, 8);
    out += kBlocks[static_cast<std::size_t>(level - 1)];
  }
  return out;
}

std::string arrivals_sparkline(const Results& r, std::size_t width) {
  const auto& h = r.provider_side ? r.recording.provider_by_outcome : r.recording.client_by_outcome;
  if (h.total() == 0 || width == 0) return "";
  const std::size_t per_glyph = (h.bins() + width - 1) / width;
  const double bin_s = ns_to_s(h.bin_ns());
  std::vector<double> values((h.bins() + per_glyph - 1) / per_glyph, 0.0);
  double peak = 0;
  for (std::size_t b = 0; b < h.bins(); ++b) {
    const double rate = static_cast<double>(h.bin_total(b)) / bin_s;
    values[b / per_glyph] = std::max(values[b / per_glyph], rate);
    peak = std::max(peak, rate);
  }
  const double span_s = bin_s * static_cast<double>(h.bins());
  std::string scale = "t=0-" + format_count(span_s) + " s, peak " + format_count(peak) + "/s";
  if (per_glyph > 1)
    scale +=
        ", busiest second of every " + format_count(bin_s * static_cast<double>(per_glyph)) + " s";
  return std::string(r.provider_side ? "arrivals/s " : "sends/s ") + "\u2595" + sparkline(values) +
         "\u258f " + scale;
}

}  // namespace stampede
