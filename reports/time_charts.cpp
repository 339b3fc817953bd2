// The time charts: arrivals by outcome and by send number, client sends against provider
// arrivals, items in backoff, streams open, tokens against their limits. Each draws scenario time
// across, in columns of the shared ChartScale::column_ns.

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chart_kinds.hpp"
#include "plot.hpp"
#include "report_format.hpp"
#include "svg_writer.hpp"

namespace stampede {
namespace {

std::string ordinal(std::size_t n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

}  // namespace

const std::vector<Layer>& outcome_layers() {
  static const std::vector<Layer> layers{
      {"ok", "#2e9e5b", {static_cast<std::size_t>(Outcome::kOk)}},
      {"429", "#f2a93b", {static_cast<std::size_t>(Outcome::kRateLimited)}},
      {"5xx",
       "#d64545",
       {static_cast<std::size_t>(Outcome::kUnavailable),
        static_cast<std::size_t>(Outcome::kOverloaded),
        static_cast<std::size_t>(Outcome::kServerError)}},
      // Whatever is not a status a provider limits with, broken answers included: a layer of
      // its own for each would crowd the legend of every storm, where they are rare.
      {"other",
       "#8a8f98",
       {static_cast<std::size_t>(Outcome::kClientError),
        static_cast<std::size_t>(Outcome::kConnectError),
        static_cast<std::size_t>(Outcome::kTimeout),
        static_cast<std::size_t>(Outcome::kBadResponse)}},
  };
  return layers;
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

namespace {

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

// A panel that starts later is labelled where it starts, unless a tick is close by.
std::vector<Tick> time_ticks_from(double x_min, double x_max) {
  auto ticks = time_ticks(x_max);
  if (!(x_min > 0) || ticks.size() < 2) return ticks;
  const double step = ticks[1].at - ticks[0].at;
  std::erase_if(ticks, [&](const Tick& t) { return t.at < x_min - 1e-9; });
  if (ticks.empty() || ticks.front().at - x_min > step * 0.4)
    ticks.insert(ticks.begin(), Tick{x_min, format_tick(x_min)});
  return ticks;
}

const BinnedCounts& arrivals_of(const Results& r) {
  return r.provider_side ? r.recording.provider_by_outcome : r.recording.client_by_outcome;
}

std::string arrivals_unit(const Results& r) {
  return r.provider_side ? "arrivals/s at the provider" : "client sends/s";
}

// Outage windows, shaded behind the data (label_outages names them over it). The groups' classes
// (outages, bars, limit) name what they hold for a page's readers: the live dashboard's browser
// tests count them.
void shade_outages(Plot& p, const Results& r, double x_max) {
  const auto& outages = r.scenario.provider.outages;
  if (outages.empty()) return;
  p.svg().begin_group({{"class", "outages"}, {"fill", kOutageColor}, {"fill-opacity", "0.09"}});
  for (const auto& w : outages) {
    const double from = std::clamp(ns_to_s(w.start_ns), p.x_min(), x_max);
    const double to = std::clamp(ns_to_s(w.end_ns), p.x_min(), x_max);
    if (to > from) {
      p.svg().rect(p.x(from), kTop, p.x(to) - p.x(from), kBottom - kTop,
                   "outage " + format_outage(w));
    }
  }
  p.svg().end_group();
}

// The outages' labels, drawn after the data: a bar at the outage's start (the fleet's first
// sends) would hide a label drawn with the shading.
void label_outages(Plot& p, const Results& r, double x_max) {
  const auto& outages = r.scenario.provider.outages;
  if (outages.empty()) return;
  p.begin_labels(kCapacityColor);
  for (const auto& w : outages) {
    const double from = std::max(ns_to_s(w.start_ns), p.x_min());
    if (from < x_max && p.x(std::min(ns_to_s(w.end_ns), x_max)) - p.x(from) > 24) {
      p.svg().text(p.x(from) + 4, kTop + 12, "outage");
    }
  }
  p.svg().end_group();
}

// A declared limit, drawn as its per-second rate across the plot (a per-minute one too).
struct DeclaredLimit {
  const std::optional<Rate>& rate;
  const char* name;
  const char* color;
  const char* dash;
};

// Declared, not measured: what the scenario says the provider admits, drawn as given.
void draw_limits(Plot& p, std::initializer_list<DeclaredLimit> limits) {
  for (const DeclaredLimit& limit : limits) {
    if (!limit.rate) continue;
    const double per_s = limit.rate->per_second();
    std::string title = std::string(limit.name) + " " + format_rate(*limit.rate);
    if (limit.rate->window_ns != kNsPerSec) title += " = " + format_count(per_s) + "/s";
    p.svg().begin_group({{"class", "limit"},
                         {"stroke", limit.color},
                         {"stroke-width", "1.5"},
                         {"stroke-dasharray", limit.dash}},
                        title);
    p.svg().line(kLeft, p.y(per_s), kRight, p.y(per_s));
    p.svg().end_group();
    p.label(kRight - 2, p.y(per_s) - 4, title, limit.color, SvgWriter::Anchor::kEnd);
  }
}

// The allowance (and the global capacity) as a per-second line across the plot.
void limit_lines(Plot& p, const Results& r) {
  const auto& provider = r.scenario.provider;
  draw_limits(p, {{provider.allowance, "declared allowance", kAllowanceColor, "6 4"},
                  {provider.capacity, "declared capacity", kCapacityColor, "2 3"}});
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
    // A live chart's axis ends at now, within its last column.
    double x1 = std::min(kRight, p.x(static_cast<double>(c + 1) * column_s));
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

// The columns taller than the plot, cut at its top: an arrowhead over each says so, and its
// tooltip how tall the column is.
void mark_cut(Plot& p, const std::vector<std::vector<double>>& rates,
              const std::vector<std::pair<double, double>>& edges, std::string_view unit) {
  bool any = false;
  for (std::size_t c = 0; c < rates.size(); ++c) {
    const double total = column_total(rates[c]);
    if (!(total > p.y_top())) continue;
    if (!any) p.svg().begin_group({{"class", "cut"}, {"fill", kInk}});
    any = true;
    const double mid = (edges[c].first + edges[c].second) / 2;
    p.svg().polygon(
        {{mid - 4, kTop + 6}, {mid + 4, kTop + 6}, {mid, kTop}},
        "cut at the top: the column reaches " + format_count(total) + " " + std::string(unit));
  }
  if (any) p.svg().end_group();
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
    p.svg().begin_group(
        {{"class", "bars"}, {"fill", layers[l].color}, {"shape-rendering", "crispEdges"}});
    for (std::size_t c = 0; c < rates.size(); ++c) {
      double below = 0;
      for (std::size_t k = 0; k < l; ++k) below += rates[c][k];
      // A zoomed panel cuts what is taller than its top (mark_cut marks where).
      const double from = std::min(below, p.y_top());
      const double to = std::min(below + rates[c][l], p.y_top());
      if (!(to > from)) continue;
      const auto [x0, x1] = edges[c];
      p.svg().rect(x0, p.y(to), x1 - x0, p.y(from) - p.y(to));
    }
    p.svg().end_group();
  }
  mark_cut(p, rates, edges, unit);
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

// A peak the summary found (its second and count), marked over its column.
struct Peak {
  double second = 0;
  double count = 0;
  double ratio = 0;
  const char* what;  // "busiest second after recovery"
  const char* of;    // "arrivals"
};

void mark_peak(Plot& p, const Peak& peak, const std::vector<std::vector<double>>& rates,
               std::int64_t column_ns) {
  if (!(peak.count > 0)) return;
  const auto c = static_cast<std::size_t>(std::llround(peak.second * kNsPerSec) / column_ns);
  if (c >= rates.size()) return;
  const double column_s = ns_to_s(column_ns);
  const double cx = p.x((static_cast<double>(c) + 0.5) * column_s);
  const double top = p.y(std::min(column_total(rates[c]), p.y_top())) - 3;
  std::string title = std::string(peak.what) + ": t=" + format_count(peak.second) + " s, " +
                      format_count(peak.count) + " " + peak.of;
  if (peak.ratio > 0) title += ", " + format_count(peak.ratio) + "x the declared allowance";
  p.svg().begin_group({{"fill", kInk}}, title);
  p.svg().polygon({{cx - 5, top - 8}, {cx + 5, top - 8}, {cx, top}});
  p.svg().end_group();
  p.label_beside(cx, 8, top - 1, "peak " + format_count(peak.count) + "/s", kInk);
}

Peak arrivals_peak(const Results& r) {
  const auto& s = r.summary;
  return {s.peak_second, s.peak_arrivals, s.peak_ratio, "busiest second after recovery",
          "arrivals"};
}

// What a stacked chart draws: which counts, in which layers, in what unit.
struct Stack {
  const BinnedCounts& counts;
  const std::vector<Layer>& layers;
  std::string unit;  // of the y axis and the tooltips: "client sends/s"
};

// Per-second rates per column and layer as the panel draws them: columns before scale.x_min
// are left out (a panel from the first retry on).
std::vector<std::vector<double>> drawn_rates(const Stack& stack, const ChartScale& scale) {
  auto rates = column_rates(stack.counts, stack.layers, scale.column_ns);
  const auto first =
      static_cast<std::size_t>(std::llround(scale.x_min * kNsPerSec) / scale.column_ns);
  for (std::size_t c = 0; c < std::min(first, rates.size()); ++c)
    std::fill(rates[c].begin(), rates[c].end(), 0.0);
  return rates;
}

// A spike flattens the rest when the shared top is more than kZoomRatio times what nine in
// ten of a run's columns reach: the first sends at t=0, an outage's burst, a storm beside a fix.
constexpr double kZoomRatio = 4;
constexpr double kRestShare = 0.9;

// What nine in ten of the run's non-empty columns reach (its limits' lines included), when
// that is under a kZoomRatio-th of the shared top; 0 otherwise: then the tall columns are the
// run, not a spike in it.
double stacked_tail(const Results& r, const ChartScale& shared, const Stack& stack) {
  std::vector<double> totals;
  for (const auto& column : drawn_rates(stack, shared)) {
    if (const double total = column_total(column); total > 0) totals.push_back(total);
  }
  if (totals.empty()) return 0;
  const auto rest =
      static_cast<std::size_t>(std::ceil(kRestShare * static_cast<double>(totals.size())) - 1);
  std::nth_element(totals.begin(), totals.begin() + static_cast<std::ptrdiff_t>(rest),
                   totals.end());
  const double top = std::max(totals[rest], limit_extent(r));
  return top * kZoomRatio <= shared.y_max ? top : 0;
}

// Columns before scale.x_min are left out (a panel from the first retry on).
std::string stacked_chart(const Results& r, const ChartScale& scale, const Stack& stack,
                          std::string_view label, const std::optional<Peak>& peak) {
  const auto& h = stack.counts;
  Plot p(label, scale.x_min, scale.x_max, scale.y_max);
  p.axes(time_ticks_from(scale.x_min, scale.x_max), "scenario time (s)", stack.unit);
  shade_outages(p, r, scale.x_max);
  const auto rates = drawn_rates(stack, scale);
  draw_stack(p, rates, stack.layers, scale.column_ns, stack.unit);
  limit_lines(p, r);
  label_outages(p, r, scale.x_max);
  if (peak) mark_peak(p, *peak, rates, scale.column_ns);
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
    out.push_back({"declared allowance", kAllowanceColor, LegendEntry::Kind::kDashed});
  }
  if (any([](const Results& r) { return r.scenario.provider.capacity.has_value(); })) {
    out.push_back({"declared capacity (529)", kCapacityColor, LegendEntry::Kind::kDashed});
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

Stack outcome_stack(const Results& r) {
  return {arrivals_of(r), outcome_layers(), arrivals_unit(r)};
}

double outcome_tail(const Results& r, const ChartScale& shared) {
  return stacked_tail(r, shared, outcome_stack(r));
}

std::string outcome_chart(const Results& r, const ChartScale& scale) {
  return stacked_chart(r, scale, outcome_stack(r), "arrivals per second by outcome",
                       arrivals_peak(r));
}

std::vector<LegendEntry> outcome_legend(const std::vector<Results>& runs) {
  std::vector<LegendEntry> out;
  for (const auto& l : outcome_layers()) out.push_back({l.name, l.color});
  for (auto& e : limit_legend(runs)) out.push_back(std::move(e));
  return out;
}

// 2. The waves: sends by send number. The clients know each send's number; the provider
// knows it only from what they told it (X-Attempt), so the clients' record goes first.

bool client_numbered(const Results& r) {
  const auto& h = r.recording.client_by_send_number;
  return h.total() > 0 || h.overflow_total() > 0;
}

const BinnedCounts& by_send_number(const Results& r) {
  return client_numbered(r) ? r.recording.client_by_send_number : r.recording.provider_by_send;
}

std::string by_send_number_unit(const Results& r) {
  return client_numbered(r) ? "client sends/s" : arrivals_unit(r);
}

bool has_waves(const Results& r) {
  return by_send_number(r).total() > 0;
}

ChartScale waves_extent(const Results& r, std::int64_t column_ns) {
  return stacked_extent(by_send_number(r), send_layers(), r, column_ns);
}

Stack waves_stack(const Results& r) {
  return {by_send_number(r), send_layers(), by_send_number_unit(r)};
}

double waves_tail(const Results& r, const ChartScale& shared) {
  return stacked_tail(r, shared, waves_stack(r));
}

std::string waves_chart(const Results& r, const ChartScale& scale) {
  return stacked_chart(r, scale, waves_stack(r), "sends per second by send number", std::nullopt);
}

// The layers from first_layer on that some run's histogram (of) has counts in, then the limits.
std::vector<LegendEntry> used_layers_legend(const std::vector<Results>& runs,
                                            const std::vector<Layer>& layers,
                                            const BinnedCounts& (*of)(const Results&),
                                            std::size_t first_layer) {
  std::vector<LegendEntry> out;
  for (std::size_t l = first_layer; l < layers.size(); ++l) {
    const bool used = std::any_of(runs.begin(), runs.end(), [&](const Results& r) {
      const auto& h = of(r);
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

std::vector<LegendEntry> send_legend(const std::vector<Results>& runs, std::size_t first_layer) {
  return used_layers_legend(runs, send_layers(), by_send_number, first_layer);
}

std::vector<LegendEntry> waves_legend(const std::vector<Results>& runs) {
  return send_legend(runs, 0);
}

// 2b. The retries alone, from the first retry on: the first wave (every first send at t=0)
// sets no scale here, so the part the gate (peak_retry_ratio) is about is drawn tall enough
// to read. It starts where the gate starts counting: t=1 s, or the end of the last outage.

const std::vector<Layer>& retry_layers() {
  static const std::vector<Layer> layers(send_layers().begin() + 1, send_layers().end());
  return layers;
}

std::int64_t gate_start_ns(const Results& r) {
  return std::max<std::int64_t>(kNsPerSec, recovery_ns(r.scenario.provider));
}

// The first column at or after the gate's start with a retry in it; none: nullopt.
std::optional<std::size_t> first_retry_column(const Results& r, std::int64_t column_ns) {
  const auto rates = column_rates(by_send_number(r), retry_layers(), column_ns);
  const auto from = static_cast<std::size_t>((gate_start_ns(r) + column_ns - 1) / column_ns);
  for (std::size_t c = from; c < rates.size(); ++c) {
    if (column_total(rates[c]) > 0) return c;
  }
  return std::nullopt;
}

bool has_retries(const Results& r) {
  return first_retry_column(r, kNsPerSec).has_value();
}

ChartScale retries_extent(const Results& r, std::int64_t column_ns) {
  ChartScale s;
  s.column_ns = column_ns;
  const auto first = first_retry_column(r, column_ns).value_or(0);
  s.x_min = ns_to_s(static_cast<std::int64_t>(first) * column_ns);
  s.x_max = span_s(by_send_number(r), column_ns);
  s.y_max = limit_extent(r);
  const auto rates = column_rates(by_send_number(r), retry_layers(), column_ns);
  for (std::size_t c = first; c < rates.size(); ++c)
    s.y_max = std::max(s.y_max, column_total(rates[c]));
  return s;
}

Stack retries_stack(const Results& r) {
  return {by_send_number(r), retry_layers(), by_send_number_unit(r)};
}

double retries_tail(const Results& r, const ChartScale& shared) {
  return stacked_tail(r, shared, retries_stack(r));
}

std::string retries_chart(const Results& r, const ChartScale& scale) {
  const auto& s = r.summary;
  const Peak peak{s.peak_retry_second, s.peak_retries, s.peak_retry_ratio,
                  "busiest second of retries (peak_retry_ratio)", "retries"};
  return stacked_chart(r, scale, retries_stack(r),
                       "retries per second by send number, from the first retry on", peak);
}

std::vector<LegendEntry> retries_legend(const std::vector<Results>& runs) {
  return send_legend(runs, 1);
}

// 2c. The statuses the clients read, one layer per outcome: the arrivals chart groups them,
// and shows the provider's view when there is one.

const std::vector<Layer>& status_layers() {
  static const std::vector<Layer> layers = [] {
    // By name, so an outcome added later gets a colour of its own or the fallback.
    const std::vector<std::pair<std::string_view, const char*>> kColors{
        {"ok", "#2e9e5b"},
        {"429", "#f2a93b"},
        {"503", "#d64545"},
        {"529", "#b8232f"},
        {"5xx", "#e27d60"},
        {"4xx", "#8a8f98"},
        {"connect_error", "#4b5563"},
        {"timeout", "#b59ad8"}};
    std::vector<Layer> out;
    for (std::size_t i = 0; i < kOutcomeNames.size(); ++i) {
      const auto name = kOutcomeNames[i];
      const auto it = std::find_if(kColors.begin(), kColors.end(),
                                   [&](const auto& c) { return c.first == name; });
      out.push_back({std::string(name), it == kColors.end() ? "#6d4c9f" : it->second, {i}});
    }
    return out;
  }();
  return layers;
}

bool has_statuses(const Results& r) {
  return r.engine == "run" && r.recording.client_by_outcome.total() > 0;
}

ChartScale statuses_extent(const Results& r, std::int64_t column_ns) {
  return stacked_extent(r.recording.client_by_outcome, status_layers(), r, column_ns);
}

Stack statuses_stack(const Results& r) {
  return {r.recording.client_by_outcome, status_layers(), "client sends/s"};
}

double statuses_tail(const Results& r, const ChartScale& shared) {
  return stacked_tail(r, shared, statuses_stack(r));
}

std::string statuses_chart(const Results& r, const ChartScale& scale) {
  return stacked_chart(r, scale, statuses_stack(r),
                       "status codes per second, as the clients read them", std::nullopt);
}

const BinnedCounts& client_outcomes(const Results& r) {
  return r.recording.client_by_outcome;
}

std::vector<LegendEntry> statuses_legend(const std::vector<Results>& runs) {
  return used_layers_legend(runs, status_layers(), client_outcomes, 0);
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

// One line of a lines chart: a histogram's layer per second, drawn solid or dashed.
struct Line {
  const BinnedCounts& counts;
  Layer layer;
  bool dashed = false;
};

ChartScale lines_extent(const std::vector<Line>& lines, const Results& r, std::int64_t column_ns) {
  ChartScale s{column_ns, 0, 0};
  for (const auto& line : lines) {
    const auto one = stacked_extent(line.counts, {line.layer}, r, column_ns);
    s.x_max = std::max(s.x_max, one.x_max);
    s.y_max = std::max(s.y_max, one.y_max);
  }
  return s;
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

std::vector<double> totals(const BinnedCounts& h, const Layer& layer, std::int64_t column_ns,
                           std::size_t columns) {
  std::vector<double> out(columns, 0.0);
  const auto rates = column_rates(h, {layer}, column_ns);
  for (std::size_t c = 0; c < rates.size() && c < columns; ++c) out[c] = rates[c][0];
  return out;
}

// Step lines, one a histogram, over a column's tooltip with every line's rate in it; declared
// limits across them.
std::string lines_chart(const char* title, const std::vector<Line>& lines, const ChartScale& scale,
                        const char* y_label = "requests/s",
                        std::initializer_list<DeclaredLimit> limits = {}) {
  Plot p(title, 0, scale.x_max, scale.y_max);
  p.axes(time_ticks(scale.x_max), "scenario time (s)", y_label);
  const auto columns =
      static_cast<std::size_t>(std::llround(scale.x_max * kNsPerSec) / scale.column_ns);
  std::vector<std::vector<double>> values;
  for (const auto& line : lines) {
    values.push_back(totals(line.counts, line.layer, scale.column_ns, columns));
    const auto name = line.layer.name + " per second";
    if (line.dashed) {
      p.svg().begin_group({{"fill", "none"},
                           {"stroke", line.layer.color},
                           {"stroke-width", "1.5"},
                           {"stroke-dasharray", "4 2"}},
                          name);
    } else {
      p.svg().begin_group({{"fill", "none"}, {"stroke", line.layer.color}, {"stroke-width", "1.5"}},
                          name);
    }
    p.svg().polyline(step_line(p, values.back(), scale.column_ns));
    p.svg().end_group();
  }
  draw_limits(p, limits);
  p.svg().begin_group({{"fill", "#000"}, {"fill-opacity", "0"}});
  const double column_s = ns_to_s(scale.column_ns);
  for (std::size_t c = 0; c < columns; ++c) {
    std::string tip;
    bool any = false;
    for (std::size_t l = 0; l < lines.size(); ++l) {
      tip += (l ? ", " : ": ") + lines[l].layer.name + " " + format_count(values[l][c]) + "/s";
      any = any || values[l][c] != 0;
    }
    if (!any) continue;
    const double x0 = p.x(static_cast<double>(c) * column_s);
    p.svg().rect(x0, kTop, p.x(static_cast<double>(c + 1) * column_s) - x0, kBottom - kTop,
                 time_span(c, scale.column_ns) + tip + per_second_note(scale.column_ns));
  }
  p.svg().end_group();
  return p.finish();
}

std::vector<LegendEntry> lines_legend(const std::vector<Line>& lines) {
  std::vector<LegendEntry> out;
  for (const auto& line : lines) {
    out.push_back({line.layer.name, line.layer.color,
                   line.dashed ? LegendEntry::Kind::kDashed : LegendEntry::Kind::kLine});
  }
  return out;
}

std::vector<Line> fidelity_lines(const Results& r) {
  const auto all = total_layer().front().labels;
  return {{r.recording.client_by_outcome, {"client sends", kClientColor, all}},
          {r.recording.provider_by_outcome, {"provider arrivals", kProviderColor, all}, true}};
}

ChartScale fidelity_extent(const Results& r, std::int64_t column_ns) {
  return lines_extent(fidelity_lines(r), r, column_ns);
}

std::string fidelity_chart(const Results& r, const ChartScale& scale) {
  return lines_chart("client sends and provider arrivals per second", fidelity_lines(r), scale);
}

std::vector<LegendEntry> fidelity_legend(const std::vector<Results>&) {
  return lines_legend(fidelity_lines(Results{}));
}

// 3b. A trace's arrivals against the fleet's first sends and retries: the replay's honesty.

bool has_trace(const Results& r) {
  return r.recording.trace.has_value();
}

std::vector<Line> trace_lines(const Results& r) {
  static const TraceRecording kNone;
  const auto& trace = r.recording.trace ? *r.recording.trace : kNone;
  return {{trace.arrivals, {"trace arrivals", "#444a55", {0}}, true},
          {r.recording.client_by_send, {"first sends", send_layers()[0].color, {0}}},
          {r.recording.client_by_send, {"retries", send_layers()[2].color, {1}}}};
}

ChartScale trace_extent(const Results& r, std::int64_t column_ns) {
  return lines_extent(trace_lines(r), r, column_ns);
}

std::string trace_chart(const Results& r, const ChartScale& scale) {
  return lines_chart("trace arrivals, first sends and retries per second", trace_lines(r), scale);
}

std::vector<LegendEntry> trace_legend(const std::vector<Results>&) {
  return lines_legend(trace_lines(Results{}));
}

// 4. Levels over time: items waiting in backoff, streams open. Each is the running sum of a
// histogram's two labels (in, out) at the end of each bin, drawn as a filled step line.

struct LevelOverTime {
  const BinnedCounts& transitions;
  const char* title;  // the chart's, and the y axis's
  const char* y_label;
  const char* noun;  // of a column's tooltip: "12 items waiting in backoff"
  const char* color;
};

// The level at the end of each bin, then the most in any bin of a column: a short spike must
// not vanish into a wide column.
std::vector<double> level_columns(const BinnedCounts& h, std::int64_t column_ns) {
  const auto span_ns = static_cast<std::int64_t>(h.bins()) * h.bin_ns();
  std::vector<double> out(static_cast<std::size_t>((span_ns + column_ns - 1) / column_ns), 0.0);
  const auto levels = running_levels(h);
  for (std::size_t b = 0; b < levels.size(); ++b) {
    auto& v = out[static_cast<std::size_t>(static_cast<std::int64_t>(b) * h.bin_ns() / column_ns)];
    v = std::max(v, static_cast<double>(levels[b]));
  }
  return out;
}

ChartScale level_extent(const BinnedCounts& h, std::int64_t column_ns) {
  ChartScale s;
  s.column_ns = column_ns;
  s.x_max = span_s(h, column_ns);
  for (double v : level_columns(h, column_ns)) s.y_max = std::max(s.y_max, v);
  return s;
}

std::string level_chart(const Results& r, const LevelOverTime& level, const ChartScale& scale) {
  Plot p(level.title, 0, scale.x_max, scale.y_max);
  p.axes(time_ticks(scale.x_max), "scenario time (s)", level.y_label);
  shade_outages(p, r, scale.x_max);
  const auto levels = level_columns(level.transitions, scale.column_ns);
  auto outline = step_line(p, levels, scale.column_ns);
  auto area = outline;
  if (!area.empty()) {
    area.push_back({area.back().x, p.y(0)});
    area.push_back({area.front().x, p.y(0)});
  }
  p.svg().begin_group({{"fill", level.color}, {"fill-opacity", "0.35"}});
  p.svg().polygon(area);
  p.svg().end_group();
  p.svg().begin_group({{"fill", "none"}, {"stroke", level.color}, {"stroke-width", "1.5"}});
  p.svg().polyline(outline);
  p.svg().end_group();
  p.svg().begin_group({{"fill", "#000"}, {"fill-opacity", "0"}});
  const double column_s = ns_to_s(scale.column_ns);
  for (std::size_t c = 0; c < levels.size(); ++c) {
    if (levels[c] == 0) continue;
    const double x0 = p.x(static_cast<double>(c) * column_s);
    p.svg().rect(x0, kTop, p.x(static_cast<double>(c + 1) * column_s) - x0, kBottom - kTop,
                 time_span(c, scale.column_ns) + ": " + format_count(levels[c]) + " " + level.noun);
  }
  p.svg().end_group();
  label_outages(p, r, scale.x_max);
  return p.finish();
}

constexpr const char* kBackoffColor = "#7b5ea7";

bool has_backoff(const Results& r) {
  return r.recording.backoff.total() > 0;
}

LevelOverTime backoff_level(const Results& r) {
  return {r.recording.backoff, "items waiting in backoff", "items in backoff",
          "items waiting in backoff", kBackoffColor};
}

ChartScale backoff_extent(const Results& r, std::int64_t column_ns) {
  return level_extent(r.recording.backoff, column_ns);
}

std::string backoff_chart(const Results& r, const ChartScale& scale) {
  return level_chart(r, backoff_level(r), scale);
}

std::vector<LegendEntry> backoff_legend(const std::vector<Results>&) {
  return {{"items waiting in backoff (most in each column)", kBackoffColor}};
}

// 4b. Streams open (--stream): each from its request's send to its last byte.

constexpr const char* kOpenStreamsColor = "#1f8a8a";

bool has_open_streams(const Results& r) {
  return r.recording.streams.open_transitions.total() > 0;
}

LevelOverTime open_streams_level(const Results& r) {
  return {r.recording.streams.open_transitions, "streams open", "streams open", "streams open",
          kOpenStreamsColor};
}

ChartScale open_streams_extent(const Results& r, std::int64_t column_ns) {
  return level_extent(r.recording.streams.open_transitions, column_ns);
}

std::string open_streams_chart(const Results& r, const ChartScale& scale) {
  return level_chart(r, open_streams_level(r), scale);
}

std::vector<LegendEntry> open_streams_legend(const std::vector<Results>&) {
  return {{"streams open at the end of each second (most in each column)", kOpenStreamsColor}};
}

// 5. Token limits (docs/LLM.md): the LLM requests' tokens admitted per second against the limits
// in force, output tokens reserved against those settled, and the refusals by which limit.

constexpr const char* kInputColor = "#2f6fd1";
constexpr const char* kReservedColor = "#f08a24";
constexpr const char* kSettledColor = "#2e9e5b";
constexpr const char* kTokenLimitColor = "#8b1e3f";

// The limits the fleet's LLM requests are held to: their model's when provider.models lists
// it (loadgen's requests name the model "stampede", docs/LLM.md#per-model), else the
// provider's own.
ModelLimits fleet_limits(const ProviderConfig& p) {
  for (const auto& m : p.models)
    if (m.name == "stampede") return m;
  return {"",
          p.allowance,
          p.token_allowance,
          p.input_token_allowance,
          p.output_token_allowance,
          p.max_concurrent};
}

double declared_top(std::initializer_list<std::optional<Rate>> rates) {
  double top = 0;
  for (const auto& rate : rates)
    if (rate) top = std::max(top, rate->per_second() * 1.15);
  return top;
}

const BinnedCounts& token_flows(const Results& r) {
  return r.recording.tokens.flows;
}

bool has_input_limits(const Results& r) {
  const auto limits = fleet_limits(r.scenario.provider);
  return r.recording.tokens.flow_total(TokenRecording::kAdmitted) > 0 &&
         (limits.input_token_allowance || limits.token_allowance);
}

// OpenAI counts the combined allowance as the input plus max_tokens at admission; the other
// dialects, the input declared.
std::vector<Line> input_lines(const Results& r) {
  std::vector<Line> lines{
      {token_flows(r), {"input tokens admitted", kInputColor, {TokenRecording::kInput}}}};
  if (r.scenario.provider.dialect == Dialect::kOpenAi &&
      fleet_limits(r.scenario.provider).token_allowance)
    lines.push_back({token_flows(r),
                     {"input + max_tokens (the combined charge)",
                      kReservedColor,
                      {TokenRecording::kInput, TokenRecording::kReserved}},
                     true});
  return lines;
}

ChartScale input_extent(const Results& r, std::int64_t column_ns) {
  auto s = lines_extent(input_lines(r), r, column_ns);
  const auto limits = fleet_limits(r.scenario.provider);
  s.y_max = std::max(s.y_max, declared_top({limits.input_token_allowance, limits.token_allowance}));
  return s;
}

std::string input_chart(const Results& r, const ChartScale& scale) {
  const auto limits = fleet_limits(r.scenario.provider);
  return lines_chart(
      "input tokens admitted per second", input_lines(r), scale, "tokens/s",
      {{limits.input_token_allowance, "declared input-token allowance", kTokenLimitColor, "6 4"},
       {limits.token_allowance, "declared token allowance", kCapacityColor, "2 3"}});
}

std::vector<LegendEntry> input_legend(const std::vector<Results>& runs) {
  auto out = lines_legend(input_lines(runs.empty() ? Results{} : runs.front()));
  out.push_back({"declared limit (per second)", kTokenLimitColor, LegendEntry::Kind::kDashed});
  return out;
}

bool has_reservations(const Results& r) {
  return r.recording.tokens.flow_total(TokenRecording::kReserved) > 0;
}

std::vector<Line> output_lines(const Results& r) {
  return {{token_flows(r),
           {"output tokens reserved (max_tokens, at admission)",
            kReservedColor,
            {TokenRecording::kReserved}}},
          {token_flows(r),
           {"output tokens settled (written; the rest refunded)",
            kSettledColor,
            {TokenRecording::kSettled}},
           true}};
}

ChartScale output_extent(const Results& r, std::int64_t column_ns) {
  auto s = lines_extent(output_lines(r), r, column_ns);
  s.y_max =
      std::max(s.y_max, declared_top({fleet_limits(r.scenario.provider).output_token_allowance}));
  return s;
}

std::string output_chart(const Results& r, const ChartScale& scale) {
  return lines_chart("output tokens reserved and settled per second", output_lines(r), scale,
                     "tokens/s",
                     {{fleet_limits(r.scenario.provider).output_token_allowance,
                       "declared output-token allowance", kTokenLimitColor, "6 4"}});
}

std::vector<LegendEntry> output_legend(const std::vector<Results>&) {
  auto out = lines_legend(output_lines(Results{}));
  out.push_back({"declared output-token allowance (per second)", kTokenLimitColor,
                 LegendEntry::Kind::kDashed});
  return out;
}

const std::vector<Layer>& refusal_layers() {
  static const std::vector<Layer> layers = [] {
    constexpr std::array<const char*, kTokenLimitCount> kColors{
        "#f2a93b", "#b8232f", "#2f6fd1", "#f08a24", "#1f8a8a", "#6d4c9f", "#8a8f98"};
    std::vector<Layer> out;
    for (std::size_t i = 0; i < kTokenLimitCount; ++i)
      out.push_back({std::string(limit_words(static_cast<TokenLimit>(i))), kColors[i], {i}});
    return out;
  }();
  return layers;
}

const BinnedCounts& token_refusals(const Results& r) {
  return r.recording.tokens.refusals;
}

bool has_token_refusals(const Results& r) {
  return r.recording.tokens.refusals.total() > 0;
}

ChartScale refusals_extent(const Results& r, std::int64_t column_ns) {
  ChartScale s;
  s.column_ns = column_ns;
  // As long as the flows' charts beside it: the last refusal is seldom the run's end.
  s.x_max = std::max(span_s(token_refusals(r), column_ns), span_s(token_flows(r), column_ns));
  for (const auto& column : column_rates(token_refusals(r), refusal_layers(), column_ns))
    s.y_max = std::max(s.y_max, column_total(column));
  return s;
}

// Stacked as the arrivals are, without their allowance line: these are 429s, not admissions.
std::string refusals_chart(const Results& r, const ChartScale& scale) {
  Plot p("429s per second by the limit that refused", scale.x_min, scale.x_max, scale.y_max);
  p.axes(time_ticks(scale.x_max), "scenario time (s)", "refusals/s");
  shade_outages(p, r, scale.x_max);
  const auto rates = column_rates(token_refusals(r), refusal_layers(), scale.column_ns);
  draw_stack(p, rates, refusal_layers(), scale.column_ns, "refusals/s");
  label_outages(p, r, scale.x_max);
  return p.finish();
}

std::vector<LegendEntry> refusals_legend(const std::vector<Results>& runs) {
  return used_layers_legend(runs, refusal_layers(), token_refusals, 0);
}

}  // namespace

constexpr ChartKind kArrivalsChart{always, outcome_extent, outcome_chart, outcome_legend,
                                   outcome_tail};
constexpr ChartKind kWavesChart{has_waves, waves_extent, waves_chart, waves_legend, waves_tail};
constexpr ChartKind kRetriesChart{has_retries, retries_extent, retries_chart, retries_legend,
                                  retries_tail};
constexpr ChartKind kStatusesChart{has_statuses, statuses_extent, statuses_chart, statuses_legend,
                                   statuses_tail};
constexpr ChartKind kFidelityChart{shows_fidelity, fidelity_extent, fidelity_chart,
                                   fidelity_legend};
constexpr ChartKind kTraceChart{has_trace, trace_extent, trace_chart, trace_legend};
constexpr ChartKind kBackoffChart{has_backoff, backoff_extent, backoff_chart, backoff_legend};
constexpr ChartKind kOpenStreamsChart{has_open_streams, open_streams_extent, open_streams_chart,
                                      open_streams_legend};
constexpr ChartKind kInputTokensChart{has_input_limits, input_extent, input_chart, input_legend};
constexpr ChartKind kOutputTokensChart{has_reservations, output_extent, output_chart,
                                       output_legend};
constexpr ChartKind kRefusalsChart{has_token_refusals, refusals_extent, refusals_chart,
                                   refusals_legend};

}  // namespace stampede
