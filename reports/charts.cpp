#include "charts.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "report_format.hpp"
#include "svg_writer.hpp"

namespace stampede {
namespace {

// The viewBox of every panel and its plot area; the page scales panels to their column.
constexpr double kWidth = 640;
constexpr double kHeight = 262;
constexpr double kLeft = 62;
constexpr double kRight = 626;
constexpr double kTop = 14;
constexpr double kBottom = 218;

constexpr const char* kInk = "#3d4451";
constexpr const char* kGrid = "#e3e6ea";
constexpr const char* kAllowanceColor = "#15171a";
constexpr const char* kCapacityColor = "#b8232f";
constexpr const char* kOutageColor = "#d64545";

struct Layer {
  std::string name;
  std::string color;
  std::vector<std::size_t> labels;  // the histogram labels this layer adds up
};

const std::vector<Layer>& outcome_layers() {
  static const std::vector<Layer> layers{
      {"ok", "#2e9e5b", {static_cast<std::size_t>(Outcome::kOk)}},
      {"429", "#f2a93b", {static_cast<std::size_t>(Outcome::kRateLimited)}},
      {"5xx",
       "#d64545",
       {static_cast<std::size_t>(Outcome::kUnavailable),
        static_cast<std::size_t>(Outcome::kOverloaded),
        static_cast<std::size_t>(Outcome::kServerError)}},
      {"other",
       "#8a8f98",
       {static_cast<std::size_t>(Outcome::kClientError),
        static_cast<std::size_t>(Outcome::kConnectError),
        static_cast<std::size_t>(Outcome::kTimeout)}},
  };
  return layers;
}

std::string ordinal(std::size_t n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

// Neighbouring waves must differ at a glance: a ramp from blue through green and amber to
// plum.
const std::vector<Layer>& send_layers() {
  static const std::vector<Layer> layers = [] {
    constexpr std::array<const char*, kSendLabels> kColors{
        "#3b4cc0", "#2f86d6", "#1eb0c8", "#22c39a", "#6ccf6a", "#b4d34e", "#e3c83f", "#f6a735",
        "#f27b2c", "#e0512a", "#c6323a", "#a3224a", "#82205a", "#642062", "#471d63", "#2c1a52"};
    std::vector<Layer> out;
    for (std::size_t i = 0; i < kSendLabels; ++i) {
      out.push_back({ordinal(i + 1) + (i + 1 == kSendLabels ? "+" : ""), kColors[i], {i}});
    }
    return out;
  }();
  return layers;
}

double nice_step(double span, double target_ticks) {
  if (!(span > 0)) return 1;
  const double raw = span / target_ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0}) {
    if (raw <= m * magnitude * (1 + 1e-9)) return m * magnitude;
  }
  return 10 * magnitude;
}

// The y axis always starts at zero and ends on a tick, so panels sharing a maximum share
// their ticks too.
double rounded_top(double y_max) {
  if (!(y_max > 0)) return 1;
  const double step = nice_step(y_max, 5);
  return std::ceil(y_max / step - 1e-9) * step;
}

struct Tick {
  double at;
  std::string label;
};

std::vector<Tick> linear_ticks(double max, double target_ticks) {
  std::vector<Tick> ticks;
  const double step = nice_step(max, target_ticks);
  for (int i = 0; i * step <= max * (1 + 1e-9); ++i) {
    ticks.push_back({i * step, format_tick(i * step)});
  }
  return ticks;
}

// A plot area with its axes, grid and labels drawn; the chart draws its data through x()
// and y().
class Plot {
 public:
  Plot(std::string_view label, double x_min, double x_max, double y_max)
      : svg_(kWidth, kHeight, label),
        x_min_(x_min),
        x_max_(x_max > x_min ? x_max : x_min + 1),
        y_max_(rounded_top(y_max)) {}

  SvgWriter& svg() { return svg_; }
  double x(double v) const { return kLeft + (v - x_min_) / (x_max_ - x_min_) * (kRight - kLeft); }
  double y(double v) const { return kBottom - v / y_max_ * (kBottom - kTop); }

  void axes(const std::vector<Tick>& x_ticks, std::string_view x_label, std::string_view y_label) {
    const auto y_ticks = linear_ticks(y_max_, 5);
    svg_.begin_group({{"stroke", kGrid}, {"stroke-width", "1"}, {"shape-rendering", "crispEdges"}});
    for (const auto& t : y_ticks) svg_.line(kLeft, y(t.at), kRight, y(t.at));
    svg_.end_group();
    svg_.begin_group(
        {{"font-family", "system-ui, sans-serif"}, {"font-size", "11"}, {"fill", kInk}});
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

  // A note across the plot area: why a panel is empty.
  void note(std::string_view text) {
    svg_.begin_group(
        {{"font-family", "system-ui, sans-serif"}, {"font-size", "13"}, {"fill", "#8a8f98"}});
    svg_.text((kLeft + kRight) / 2, (kTop + kBottom) / 2, text, SvgWriter::Anchor::kMiddle);
    svg_.end_group();
  }

  std::string finish() { return svg_.finish(); }

 private:
  SvgWriter svg_;
  double x_min_;
  double x_max_;
  double y_max_;
};

// Small labels over the data (the allowance, the peak, the percentiles) get a white halo,
// so they stay readable wherever the data runs.
void begin_label_group(SvgWriter& svg, const char* color) {
  svg.begin_group({{"font-family", "system-ui, sans-serif"},
                   {"font-size", "10"},
                   {"fill", color},
                   {"stroke", "#fff"},
                   {"stroke-width", "3"},
                   {"stroke-linejoin", "round"},
                   {"paint-order", "stroke"}});
}

// ---- time charts -------------------------------------------------------------------------

double span_s(const BinnedCounts& h, std::int64_t column_ns) {
  const auto span_ns = static_cast<std::int64_t>(h.bins()) * h.bin_ns();
  const auto columns = (span_ns + column_ns - 1) / column_ns;
  return ns_to_s(columns * column_ns);
}

// Per-second rates per column and layer.
std::vector<std::vector<double>> column_rates(const BinnedCounts& h,
                                              const std::vector<Layer>& layers,
                                              std::int64_t column_ns) {
  const auto span_ns = static_cast<std::int64_t>(h.bins()) * h.bin_ns();
  const auto columns = static_cast<std::size_t>((span_ns + column_ns - 1) / column_ns);
  std::vector<std::vector<double>> rates(columns, std::vector<double>(layers.size(), 0.0));
  const double column_s = ns_to_s(column_ns);
  for (std::size_t b = 0; b < h.bins(); ++b) {
    const auto c = static_cast<std::size_t>(static_cast<std::int64_t>(b) * h.bin_ns() / column_ns);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      for (auto label : layers[l].labels) {
        if (label < h.labels()) rates[c][l] += static_cast<double>(h.at(b, label)) / column_s;
      }
    }
  }
  return rates;
}

double column_total(const std::vector<double>& column) {
  double sum = 0;
  for (double v : column) sum += v;
  return sum;
}

std::string time_span(std::size_t column, std::int64_t column_ns) {
  const double from = ns_to_s(static_cast<std::int64_t>(column) * column_ns);
  if (column_ns == kNsPerSec) return "t=" + format_count(from) + " s";
  return "t=" + format_count(from) + "\u2013" + format_count(from + ns_to_s(column_ns)) + " s";
}

// What a rate means when a column covers more than one second.
std::string per_second_note(std::int64_t column_ns) {
  if (column_ns == kNsPerSec) return "";
  return " (mean over " + format_count(ns_to_s(column_ns)) + " s)";
}

std::vector<Tick> time_ticks(double x_max) {
  return linear_ticks(x_max, 8);
}

const BinnedCounts& arrivals_of(const Results& r) {
  return r.provider_side ? r.recording.provider_by_outcome : r.recording.client_by_outcome;
}

std::string arrivals_unit(const Results& r) {
  return r.provider_side ? "arrivals/s at the provider" : "client sends/s";
}

// Outage windows, shaded behind the data.
void shade_outages(Plot& p, const Results& r, double x_max) {
  const auto& outages = r.scenario.provider.outages;
  if (outages.empty()) return;
  p.svg().begin_group({{"fill", kOutageColor}, {"fill-opacity", "0.09"}});
  for (const auto& w : outages) {
    const double from = std::min(ns_to_s(w.start_ns), x_max);
    const double to = std::min(ns_to_s(w.end_ns), x_max);
    if (to > from) {
      p.svg().rect(p.x(from), kTop, p.x(to) - p.x(from), kBottom - kTop,
                   "outage " + format_outage(w));
    }
  }
  p.svg().end_group();
  begin_label_group(p.svg(), kCapacityColor);
  for (const auto& w : outages) {
    const double from = ns_to_s(w.start_ns);
    if (from < x_max && p.x(std::min(ns_to_s(w.end_ns), x_max)) - p.x(from) > 24) {
      p.svg().text(p.x(from) + 4, kTop + 12, "outage");
    }
  }
  p.svg().end_group();
}

// The allowance (and the global capacity) as a per-second line across the plot.
void limit_lines(Plot& p, const Results& r) {
  const auto& provider = r.scenario.provider;
  struct Limit {
    const std::optional<Rate>& rate;
    const char* name;
    const char* color;
    const char* dash;
  };
  for (const Limit& limit : {Limit{provider.allowance, "allowance", kAllowanceColor, "6 4"},
                             Limit{provider.capacity, "capacity", kCapacityColor, "2 3"}}) {
    if (!limit.rate) continue;
    const double per_s = limit.rate->per_second();
    std::string title = std::string(limit.name) + " " + format_rate(*limit.rate);
    if (limit.rate->window_ns != kNsPerSec) title += " = " + format_count(per_s) + "/s";
    p.svg().begin_group(
        {{"stroke", limit.color}, {"stroke-width", "1.5"}, {"stroke-dasharray", limit.dash}},
        title);
    p.svg().line(kLeft, p.y(per_s), kRight, p.y(per_s));
    p.svg().end_group();
    begin_label_group(p.svg(), limit.color);
    p.svg().text(kRight - 2, p.y(per_s) - 4, title, SvgWriter::Anchor::kEnd);
    p.svg().end_group();
  }
}

double limit_extent(const Results& r) {
  double top = 0;
  for (const auto& rate : {r.scenario.provider.allowance, r.scenario.provider.capacity}) {
    if (rate) top = std::max(top, rate->per_second() * 1.15);
  }
  return top;
}

// The drawn left and right edge of each column. A busy column between two empty ones is
// widened to kMinSpikeWidth: a lockstep wave lasts one second, and a hairline would hide it.
constexpr double kMinSpikeWidth = 3;

std::vector<std::pair<double, double>> column_edges(const Plot& p,
                                                    const std::vector<std::vector<double>>& rates,
                                                    std::int64_t column_ns) {
  const double column_s = ns_to_s(column_ns);
  std::vector<std::pair<double, double>> edges;
  for (std::size_t c = 0; c < rates.size(); ++c) {
    double x0 = p.x(static_cast<double>(c) * column_s);
    double x1 = p.x(static_cast<double>(c + 1) * column_s);
    const bool empty_before = c == 0 || !(column_total(rates[c - 1]) > 0);
    const bool empty_after = c + 1 == rates.size() || !(column_total(rates[c + 1]) > 0);
    if (empty_before && empty_after && x1 - x0 < kMinSpikeWidth) {
      const double mid = (x0 + x1) / 2;
      x0 = std::max(kLeft, mid - kMinSpikeWidth / 2);
      x1 = x0 + kMinSpikeWidth;
    }
    edges.emplace_back(x0, x1);
  }
  return edges;
}

// Stacked columns, then one invisible column over each non-empty one whose native tooltip
// reads out the whole column.
void draw_stack(Plot& p, const std::vector<std::vector<double>>& rates,
                const std::vector<Layer>& layers, std::int64_t column_ns, std::string_view unit) {
  const auto edges = column_edges(p, rates, column_ns);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    bool any = false;
    for (const auto& column : rates) any = any || column[l] > 0;
    if (!any) continue;
    p.svg().begin_group({{"fill", layers[l].color}, {"shape-rendering", "crispEdges"}});
    for (std::size_t c = 0; c < rates.size(); ++c) {
      if (!(rates[c][l] > 0)) continue;
      double below = 0;
      for (std::size_t k = 0; k < l; ++k) below += rates[c][k];
      const auto [x0, x1] = edges[c];
      p.svg().rect(x0, p.y(below + rates[c][l]), x1 - x0, p.y(below) - p.y(below + rates[c][l]));
    }
    p.svg().end_group();
  }
  p.svg().begin_group({{"fill", "#000"}, {"fill-opacity", "0"}});
  for (std::size_t c = 0; c < rates.size(); ++c) {
    const double total = column_total(rates[c]);
    if (!(total > 0)) continue;
    std::string title = time_span(c, column_ns) + ": " + format_count(total) + " " +
                        std::string(unit) + per_second_note(column_ns);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      if (rates[c][l] > 0) title += "\n  " + layers[l].name + ": " + format_count(rates[c][l]);
    }
    const auto [x0, x1] = edges[c];
    p.svg().rect(x0, kTop, x1 - x0, kBottom - kTop, title);
  }
  p.svg().end_group();
}

ChartScale stacked_extent(const BinnedCounts& h, const std::vector<Layer>& layers, const Results& r,
                          std::int64_t column_ns) {
  ChartScale s;
  s.column_ns = column_ns;
  s.x_max = span_s(h, column_ns);
  s.y_max = limit_extent(r);
  for (const auto& column : column_rates(h, layers, column_ns)) {
    s.y_max = std::max(s.y_max, column_total(column));
  }
  return s;
}

// The busiest second after recovery, marked where the summary found it.
void mark_peak(Plot& p, const Results& r, const std::vector<std::vector<double>>& rates,
               std::int64_t column_ns) {
  const auto& s = r.summary;
  if (!(s.peak_arrivals > 0)) return;
  const auto c = static_cast<std::size_t>(std::llround(s.peak_second * kNsPerSec) / column_ns);
  if (c >= rates.size()) return;
  const double column_s = ns_to_s(column_ns);
  const double cx = p.x((static_cast<double>(c) + 0.5) * column_s);
  const double top = p.y(column_total(rates[c])) - 3;
  std::string title = "busiest second after recovery: t=" + format_count(s.peak_second) + " s, " +
                      format_count(s.peak_arrivals) + " arrivals";
  if (s.peak_ratio > 0) title += ", " + format_count(s.peak_ratio) + "x the allowance";
  p.svg().begin_group({{"fill", kInk}}, title);
  p.svg().polygon({{cx - 5, top - 8}, {cx + 5, top - 8}, {cx, top}});
  p.svg().end_group();
  begin_label_group(p.svg(), kInk);
  const bool right_half = cx > (kLeft + kRight) / 2;
  p.svg().text(cx + (right_half ? -8 : 8), top - 1, "peak " + format_count(s.peak_arrivals) + "/s",
               right_half ? SvgWriter::Anchor::kEnd : SvgWriter::Anchor::kStart);
  p.svg().end_group();
}

std::string stacked_chart(const Results& r, const ChartScale& scale, const BinnedCounts& h,
                          const std::vector<Layer>& layers, std::string_view label,
                          bool with_peak) {
  Plot p(label, 0, scale.x_max, scale.y_max);
  p.axes(time_ticks(scale.x_max), "scenario time (s)", arrivals_unit(r));
  shade_outages(p, r, scale.x_max);
  const auto rates = column_rates(h, layers, scale.column_ns);
  draw_stack(p, rates, layers, scale.column_ns, arrivals_unit(r));
  limit_lines(p, r);
  if (with_peak) mark_peak(p, r, rates, scale.column_ns);
  if (h.total() == 0 && h.overflow_total() == 0) {
    p.note("no arrivals recorded");
  } else if (h.total() == 0) {
    p.note("all " + format_count(static_cast<double>(h.overflow_total())) +
           " after t=" + format_count(ns_to_s(h.overflow_start_ns())) + " s, past the last bin");
  }
  return p.finish();
}

std::vector<LegendEntry> limit_legend(const std::vector<Results>& runs) {
  std::vector<LegendEntry> out;
  auto any = [&](auto has) { return std::any_of(runs.begin(), runs.end(), has); };
  if (any([](const Results& r) { return r.scenario.provider.allowance.has_value(); })) {
    out.push_back({"allowance", kAllowanceColor, LegendEntry::Kind::kDashed});
  }
  if (any([](const Results& r) { return r.scenario.provider.capacity.has_value(); })) {
    out.push_back({"capacity (529)", kCapacityColor, LegendEntry::Kind::kDashed});
  }
  if (any([](const Results& r) { return !r.scenario.provider.outages.empty(); })) {
    out.push_back({"outage", kOutageColor, LegendEntry::Kind::kShade});
  }
  return out;
}

// 1. Arrivals by outcome.

bool always(const Results&) {
  return true;
}

ChartScale outcome_extent(const Results& r, std::int64_t column_ns) {
  return stacked_extent(arrivals_of(r), outcome_layers(), r, column_ns);
}

std::string outcome_chart(const Results& r, const ChartScale& scale) {
  return stacked_chart(r, scale, arrivals_of(r), outcome_layers(), "arrivals per second by outcome",
                       true);
}

std::vector<LegendEntry> outcome_legend(const std::vector<Results>& runs) {
  std::vector<LegendEntry> out;
  for (const auto& l : outcome_layers()) out.push_back({l.name, l.color});
  for (auto& e : limit_legend(runs)) out.push_back(std::move(e));
  return out;
}

// 2. The waves: arrivals by send number.

bool has_waves(const Results& r) {
  return r.recording.provider_by_send.total() > 0;
}

ChartScale waves_extent(const Results& r, std::int64_t column_ns) {
  return stacked_extent(r.recording.provider_by_send, send_layers(), r, column_ns);
}

std::string waves_chart(const Results& r, const ChartScale& scale) {
  return stacked_chart(r, scale, r.recording.provider_by_send, send_layers(),
                       "arrivals per second by send number", false);
}

std::vector<LegendEntry> waves_legend(const std::vector<Results>& runs) {
  std::vector<LegendEntry> out;
  const auto& layers = send_layers();
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const bool used = std::any_of(runs.begin(), runs.end(), [&](const Results& r) {
      const auto& h = r.recording.provider_by_send;
      for (std::size_t b = 0; b < h.bins(); ++b) {
        if (l < h.labels() && h.at(b, l) > 0) return true;
      }
      return false;
    });
    if (used) out.push_back({layers[l].name, layers[l].color});
  }
  for (auto& e : limit_legend(runs)) out.push_back(std::move(e));
  return out;
}

// 3. Client sends against provider arrivals: the harness's fidelity.

constexpr const char* kClientColor = "#2f6fd1";
constexpr const char* kProviderColor = "#f08a24";

std::vector<Layer> total_layer() {
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < kOutcomeCount; ++i) all.push_back(i);
  return {{"all", "", all}};
}

bool shows_fidelity(const Results& r) {
  const auto& client = r.recording.client_by_outcome;
  const auto& provider = r.recording.provider_by_outcome;
  if (!r.provider_side || client.total() == 0) return false;
  if (r.engine == "run") return true;
  if (client.bins() != provider.bins()) return true;
  for (std::size_t b = 0; b < client.bins(); ++b) {
    if (client.bin_total(b) != provider.bin_total(b)) return true;
  }
  return false;
}

ChartScale fidelity_extent(const Results& r, std::int64_t column_ns) {
  const auto client = stacked_extent(r.recording.client_by_outcome, total_layer(), r, column_ns);
  const auto provider =
      stacked_extent(r.recording.provider_by_outcome, total_layer(), r, column_ns);
  return {column_ns, std::max(client.x_max, provider.x_max),
          std::max(client.y_max, provider.y_max)};
}

std::vector<SvgPoint> step_line(const Plot& p, const std::vector<double>& values,
                                std::int64_t column_ns) {
  std::vector<SvgPoint> points;
  const double column_s = ns_to_s(column_ns);
  for (std::size_t c = 0; c < values.size(); ++c) {
    points.push_back({p.x(static_cast<double>(c) * column_s), p.y(values[c])});
    points.push_back({p.x(static_cast<double>(c + 1) * column_s), p.y(values[c])});
  }
  return points;
}

std::vector<double> totals(const BinnedCounts& h, std::int64_t column_ns, std::size_t columns) {
  std::vector<double> out(columns, 0.0);
  const auto rates = column_rates(h, total_layer(), column_ns);
  for (std::size_t c = 0; c < rates.size() && c < columns; ++c) out[c] = rates[c][0];
  return out;
}

std::string fidelity_chart(const Results& r, const ChartScale& scale) {
  Plot p("client sends and provider arrivals per second", 0, scale.x_max, scale.y_max);
  p.axes(time_ticks(scale.x_max), "scenario time (s)", "requests/s");
  const auto columns =
      static_cast<std::size_t>(std::llround(scale.x_max * kNsPerSec) / scale.column_ns);
  const auto client = totals(r.recording.client_by_outcome, scale.column_ns, columns);
  const auto provider = totals(r.recording.provider_by_outcome, scale.column_ns, columns);
  p.svg().begin_group({{"fill", "none"}, {"stroke", kClientColor}, {"stroke-width", "1.5"}},
                      "client sends per second");
  p.svg().polyline(step_line(p, client, scale.column_ns));
  p.svg().end_group();
  p.svg().begin_group({{"fill", "none"},
                       {"stroke", kProviderColor},
                       {"stroke-width", "1.5"},
                       {"stroke-dasharray", "4 2"}},
                      "provider arrivals per second");
  p.svg().polyline(step_line(p, provider, scale.column_ns));
  p.svg().end_group();
  p.svg().begin_group({{"fill", "#000"}, {"fill-opacity", "0"}});
  const double column_s = ns_to_s(scale.column_ns);
  for (std::size_t c = 0; c < columns; ++c) {
    if (client[c] == 0 && provider[c] == 0) continue;
    const double x0 = p.x(static_cast<double>(c) * column_s);
    p.svg().rect(x0, kTop, p.x(static_cast<double>(c + 1) * column_s) - x0, kBottom - kTop,
                 time_span(c, scale.column_ns) + ": client sends " + format_count(client[c]) +
                     "/s, provider arrivals " + format_count(provider[c]) + "/s" +
                     per_second_note(scale.column_ns));
  }
  p.svg().end_group();
  return p.finish();
}

std::vector<LegendEntry> fidelity_legend(const std::vector<Results>&) {
  return {{"client sends", kClientColor, LegendEntry::Kind::kLine},
          {"provider arrivals", kProviderColor, LegendEntry::Kind::kDashed}};
}

// 4. Items waiting in backoff.

constexpr const char* kBackoffColor = "#7b5ea7";

bool has_backoff(const Results& r) {
  return r.recording.backoff.total() > 0;
}

// Items asleep at the end of each bin, then the most in any bin of a column: a short
// spike must not vanish into a wide column.
std::vector<double> waiting(const Results& r, std::int64_t column_ns) {
  const auto& h = r.recording.backoff;
  const auto span_ns = static_cast<std::int64_t>(h.bins()) * h.bin_ns();
  std::vector<double> out(static_cast<std::size_t>((span_ns + column_ns - 1) / column_ns), 0.0);
  std::int64_t level = 0;
  for (std::size_t b = 0; b < h.bins(); ++b) {
    level += h.at(b, 0) - (h.labels() > 1 ? h.at(b, 1) : 0);
    auto& v = out[static_cast<std::size_t>(static_cast<std::int64_t>(b) * h.bin_ns() / column_ns)];
    v = std::max(v, static_cast<double>(level));
  }
  return out;
}

ChartScale backoff_extent(const Results& r, std::int64_t column_ns) {
  ChartScale s;
  s.column_ns = column_ns;
  s.x_max = span_s(r.recording.backoff, column_ns);
  for (double v : waiting(r, column_ns)) s.y_max = std::max(s.y_max, v);
  return s;
}

std::string backoff_chart(const Results& r, const ChartScale& scale) {
  Plot p("items waiting in backoff", 0, scale.x_max, scale.y_max);
  p.axes(time_ticks(scale.x_max), "scenario time (s)", "items in backoff");
  shade_outages(p, r, scale.x_max);
  const auto levels = waiting(r, scale.column_ns);
  auto outline = step_line(p, levels, scale.column_ns);
  auto area = outline;
  if (!area.empty()) {
    area.push_back({area.back().x, p.y(0)});
    area.push_back({area.front().x, p.y(0)});
  }
  p.svg().begin_group({{"fill", kBackoffColor}, {"fill-opacity", "0.35"}});
  p.svg().polygon(area);
  p.svg().end_group();
  p.svg().begin_group({{"fill", "none"}, {"stroke", kBackoffColor}, {"stroke-width", "1.5"}});
  p.svg().polyline(outline);
  p.svg().end_group();
  p.svg().begin_group({{"fill", "#000"}, {"fill-opacity", "0"}});
  const double column_s = ns_to_s(scale.column_ns);
  for (std::size_t c = 0; c < levels.size(); ++c) {
    if (levels[c] == 0) continue;
    const double x0 = p.x(static_cast<double>(c) * column_s);
    p.svg().rect(x0, kTop, p.x(static_cast<double>(c + 1) * column_s) - x0, kBottom - kTop,
                 time_span(c, scale.column_ns) + ": " + format_count(levels[c]) +
                     " items waiting in backoff");
  }
  p.svg().end_group();
  return p.finish();
}

std::vector<LegendEntry> backoff_legend(const std::vector<Results>&) {
  return {{"items waiting in backoff (most in each column)", kBackoffColor}};
}

// ---- distributions -------------------------------------------------------------------------

struct Bucket {
  std::int64_t lower;
  std::int64_t upper;  // exclusive
  std::int64_t count;
};

std::vector<Bucket> buckets_of(const LogHistogram& h) {
  std::vector<Bucket> out;
  const auto j = h.to_json();
  for (const auto& pair : j.at("buckets")) {
    const auto lower = pair.at(0).get<std::int64_t>();
    const auto upper = LogHistogram::bucket_lower(LogHistogram::bucket_of(lower) + 1);
    out.push_back({lower, upper, pair.at(1).get<std::int64_t>()});
  }
  return out;
}

// 5a. Item latency, as a CDF.

constexpr const char* kLatencyColor = "#2f5fa7";
constexpr const char* kMarkerColor = "#6b7280";

bool has_latency(const Results& r) {
  return r.recording.item_latency_ns.count() > 0;
}

ChartScale latency_extent(const Results& r, std::int64_t column_ns) {
  return {column_ns, ns_to_s(r.recording.item_latency_ns.max()), 100};
}

std::string latency_chart(const Results& r, const ChartScale& scale) {
  const auto& h = r.recording.item_latency_ns;
  Plot p("item latency CDF", 0, scale.x_max, 100);
  p.axes(linear_ticks(scale.x_max, 8), "item latency from its intended start, backoff included (s)",
         "% of delivered items");
  // Within a bucket the CDF is drawn straight: buckets are 1/128 of their value wide.
  std::vector<SvgPoint> points;
  std::int64_t seen = 0;
  const double total = static_cast<double>(h.count());
  for (const auto& b : buckets_of(h)) {
    const auto lower = std::max(b.lower, h.min());
    const auto upper = std::min(b.upper, h.max());
    // Flat across the gap since the last bucket, then up through this one.
    points.push_back({p.x(ns_to_s(lower)), p.y(seen / total * 100)});
    seen += b.count;
    points.push_back({p.x(ns_to_s(std::max(lower, upper))), p.y(seen / total * 100)});
  }
  const std::string summary = "item latency: p50 " + format_seconds(r.summary.p50_s) + ", p99 " +
                              format_seconds(r.summary.p99_s) + ", max " +
                              format_seconds(ns_to_s(h.max())) + " (" + format_count(total) +
                              " delivered items)";
  p.svg().begin_group({{"fill", "none"},
                       {"stroke", kLatencyColor},
                       {"stroke-width", "2"},
                       {"stroke-linejoin", "round"}},
                      summary);
  p.svg().polyline(points);
  p.svg().end_group();
  struct Marker {
    const char* name;
    double at_s;
    double percent;
  };
  for (const Marker& m : {Marker{"p50", r.summary.p50_s, 50}, Marker{"p99", r.summary.p99_s, 99}}) {
    const double x = p.x(m.at_s);
    const std::string label = std::string(m.name) + " " + format_seconds(m.at_s);
    p.svg().begin_group(
        {{"stroke", kMarkerColor}, {"stroke-width", "1"}, {"stroke-dasharray", "3 3"}}, label);
    p.svg().line(x, p.y(0), x, p.y(m.percent));
    p.svg().line(kLeft, p.y(m.percent), x, p.y(m.percent));
    p.svg().end_group();
    begin_label_group(p.svg(), kInk);
    const bool right_half = x > (kLeft + kRight) / 2;
    p.svg().text(x + (right_half ? -4 : 4), p.y(m.percent) + (m.percent > 90 ? 12 : -4), label,
                 right_half ? SvgWriter::Anchor::kEnd : SvgWriter::Anchor::kStart);
    p.svg().end_group();
  }
  return p.finish();
}

std::vector<LegendEntry> latency_legend(const std::vector<Results>&) {
  return {{"delivered items by latency (CDF)", kLatencyColor, LegendEntry::Kind::kLine},
          {"p50 and p99", kMarkerColor, LegendEntry::Kind::kDashed}};
}

// 5b. Sends per item.

constexpr const char* kAttemptsColor = "#2a9d8f";

bool has_attempts(const Results& r) {
  return r.recording.sends_per_item.count() > 0;
}

ChartScale attempts_extent(const Results& r, std::int64_t column_ns) {
  const auto& h = r.recording.sends_per_item;
  ChartScale s{column_ns, static_cast<double>(h.max()), 0};
  for (const auto& b : buckets_of(h)) {
    s.y_max = std::max(s.y_max, 100.0 * static_cast<double>(b.count) / h.count());
  }
  return s;
}

std::vector<Tick> integer_ticks(double max) {
  std::vector<Tick> ticks;
  const double step = std::max(1.0, std::round(nice_step(max, 12)));
  for (double v = step; v <= max + 1e-9; v += step) ticks.push_back({v, format_tick(v)});
  if (step > 1) ticks.insert(ticks.begin(), Tick{1, "1"});
  return ticks;
}

std::string attempts_chart(const Results& r, const ChartScale& scale) {
  const auto& h = r.recording.sends_per_item;
  Plot p("sends per item", 0.5, std::max(scale.x_max, 1.0) + 0.5, scale.y_max);
  p.axes(integer_ticks(std::max(scale.x_max, 1.0)), "sends per item (first send and retries)",
         "% of finished items");
  const double slot = p.x(1.5) - p.x(0.5);
  const double bar = std::clamp(slot * 0.8, 1.0, 36.0);
  p.svg().begin_group({{"fill", kAttemptsColor}});
  for (const auto& b : buckets_of(h)) {
    const double share = 100.0 * static_cast<double>(b.count) / h.count();
    const double cx = p.x(static_cast<double>(b.lower));
    const std::string sends = b.upper - b.lower > 1
                                  ? format_count(static_cast<double>(b.lower)) + "\u2013" +
                                        format_count(static_cast<double>(b.upper - 1))
                                  : format_count(static_cast<double>(b.lower));
    p.svg().rect(cx - bar / 2, p.y(share), bar, p.y(0) - p.y(share),
                 sends + " sends: " + format_count(static_cast<double>(b.count)) + " items (" +
                     format_count(share) + "%)");
  }
  p.svg().end_group();
  return p.finish();
}

std::vector<LegendEntry> attempts_legend(const std::vector<Results>&) {
  return {{"finished items by their number of sends", kAttemptsColor}};
}

// 6. Wake lateness of a live run, in 1-2-5 steps from a microsecond.

constexpr const char* kLatenessColor = "#5b6b8c";
constexpr std::int64_t kNsPerUs = 1000;

bool has_lateness(const Results& r) {
  return r.engine == "run" && r.recording.lateness_ns.count() > 0;
}

// The upper edge of lateness bin i: 1 us, 2 us, 5 us, 10 us ...
std::int64_t lateness_edge(std::size_t i) {
  constexpr std::array<std::int64_t, 3> kSteps{1, 2, 5};
  std::int64_t edge = kSteps[i % 3] * kNsPerUs;
  for (std::size_t d = 0; d < i / 3; ++d) edge *= 10;
  return edge;
}

// The bins' upper edges, up to the first past the largest value.
std::vector<std::int64_t> lateness_edges(std::int64_t max_ns) {
  std::vector<std::int64_t> edges{lateness_edge(0)};
  while (edges.back() <= max_ns) edges.push_back(lateness_edge(edges.size()));
  return edges;
}

std::string format_ns(std::int64_t ns) {
  if (ns < kNsPerMs) return format_count(static_cast<double>(ns) / kNsPerUs) + " \u00b5s";
  if (ns < kNsPerSec) return format_count(static_cast<double>(ns) / kNsPerMs) + " ms";
  return format_count(ns_to_s(ns)) + " s";
}

std::vector<std::int64_t> lateness_counts(const LogHistogram& h,
                                          const std::vector<std::int64_t>& edges) {
  std::vector<std::int64_t> counts(edges.size(), 0);
  for (const auto& b : buckets_of(h)) {
    const auto it = std::upper_bound(edges.begin(), edges.end(), b.lower);
    counts[std::min<std::size_t>(it - edges.begin(), edges.size() - 1)] += b.count;
  }
  return counts;
}

ChartScale lateness_extent(const Results& r, std::int64_t column_ns) {
  const auto& h = r.recording.lateness_ns;
  const auto edges = lateness_edges(h.max());
  ChartScale s{column_ns, static_cast<double>(edges.size()), 0};
  for (auto n : lateness_counts(h, edges)) {
    s.y_max = std::max(s.y_max, 100.0 * static_cast<double>(n) / h.count());
  }
  return s;
}

std::string lateness_chart(const Results& r, const ChartScale& scale) {
  const auto& h = r.recording.lateness_ns;
  // The shared scale counts bins, so every panel draws the widest run's bins.
  std::vector<std::int64_t> edges;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, static_cast<std::size_t>(scale.x_max));
       ++i) {
    edges.push_back(lateness_edge(i));
  }
  Plot p("wake lateness", 0, static_cast<double>(edges.size()), scale.y_max);
  std::vector<Tick> ticks;
  for (std::size_t i = 0; i < edges.size(); i += 3) {
    ticks.push_back({static_cast<double>(i + 1), format_ns(edges[i])});
  }
  p.axes(ticks, "wake lateness: when the loop woke to send, minus the intended send", "% of sends");
  const auto counts = lateness_counts(h, edges);
  p.svg().begin_group({{"fill", kLatenessColor}});
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const double share = 100.0 * static_cast<double>(counts[i]) / h.count();
    const std::string range =
        (i == 0 ? "under " : format_ns(edges[i - 1]) + "\u2013") + format_ns(edges[i]);
    p.svg().rect(p.x(static_cast<double>(i)) + 1, p.y(share),
                 p.x(static_cast<double>(i + 1)) - p.x(static_cast<double>(i)) - 2,
                 p.y(0) - p.y(share),
                 range + ": " + format_count(static_cast<double>(counts[i])) + " sends (" +
                     format_count(share) + "%)");
  }
  p.svg().end_group();
  return p.finish();
}

std::vector<LegendEntry> lateness_legend(const std::vector<Results>&) {
  return {{"sends by how late the harness sent them", kLatenessColor}};
}

}  // namespace

const std::vector<Chart>& report_charts() {
  static const std::vector<Chart> charts{
      {"arrivals", "Arrivals per second, by outcome",
       "What the provider saw each second (the clients' sends when it kept no record), against "
       "its allowance. A lockstep fleet arrives in spikes many times the allowance; a jittered "
       "one in a low, even band.",
       always, outcome_extent, outcome_chart, outcome_legend},
      {"waves", "Arrivals per second, by send number",
       "The same arrivals coloured by which send of its item each one was: first sends, first "
       "retries, second retries ... Lockstep retries come back as one wave per send number.",
       has_waves, waves_extent, waves_chart, waves_legend},
      {"fidelity", "Client sends and provider arrivals",
       "The harness's fidelity: what the clients sent each second against what reached the "
       "provider. The lines should coincide.",
       shows_fidelity, fidelity_extent, fidelity_chart, fidelity_legend},
      {"backoff", "Items waiting in backoff",
       "How many items were asleep between a failed send and their next one.", has_backoff,
       backoff_extent, backoff_chart, backoff_legend},
      {"latency", "Item latency",
       "When each delivered item got through, counted from when it was meant to start, backoff "
       "included.",
       has_latency, latency_extent, latency_chart, latency_legend},
      {"attempts", "Sends per item",
       "How many sends each finished item took: every extra send is load on the provider.",
       has_attempts, attempts_extent, attempts_chart, attempts_legend},
      {"lateness", "Wake lateness",
       "How late the live harness sent each request after the time it meant to: its own error, "
       "small next to the delays it measures.",
       has_lateness, lateness_extent, lateness_chart, lateness_legend},
  };
  return charts;
}

std::int64_t column_ns_for(const std::vector<Results>& runs) {
  std::int64_t bin_ns = kNsPerSec;
  std::size_t bins = 0;
  for (const auto& r : runs) {
    const auto& rec = r.recording;
    for (const BinnedCounts* h :
         {&rec.provider_by_outcome, &rec.provider_by_send, &rec.client_by_outcome, &rec.backoff}) {
      bin_ns = std::max(bin_ns, h->bin_ns());
      bins = std::max(bins, h->bins());
    }
  }
  const auto per_column = std::max<std::size_t>(1, (bins + kMaxColumns - 1) / kMaxColumns);
  return bin_ns * static_cast<std::int64_t>(per_column);
}

ChartScale shared_scale(const Chart& chart, const std::vector<Results>& runs,
                        std::int64_t column_ns) {
  ChartScale shared;
  shared.column_ns = column_ns;
  for (const auto& r : runs) {
    if (!chart.applies(r)) continue;
    const auto s = chart.extent(r, column_ns);
    shared.x_max = std::max(shared.x_max, s.x_max);
    shared.y_max = std::max(shared.y_max, s.y_max);
  }
  return shared;
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
