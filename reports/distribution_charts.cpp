// The distributions: item latency, sends per item and wake lateness, each drawn from a
// LogHistogram's buckets.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chart_kinds.hpp"
#include "plot.hpp"
#include "report_format.hpp"
#include "svg_writer.hpp"

namespace stampede {
namespace {

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

// A CDF's line: within a bucket drawn straight (buckets are 1/128 of their value wide).
std::vector<SvgPoint> cdf_points(const Plot& p, const LogHistogram& h,
                                 double (*to_x)(std::int64_t)) {
  std::vector<SvgPoint> points;
  std::int64_t seen = 0;
  const double total = static_cast<double>(h.count());
  for (const auto& b : buckets_of(h)) {
    // Flat across the gap since the last bucket, then up through this one.
    const auto lower = std::max(b.lower, h.min());
    const auto upper = std::min(b.upper, h.max());
    points.push_back({p.x(to_x(lower)), p.y(static_cast<double>(seen) / total * 100)});
    seen += b.count;
    points.push_back(
        {p.x(to_x(std::max(lower, upper))), p.y(static_cast<double>(seen) / total * 100)});
  }
  return points;
}

std::string latency_chart(const Results& r, const ChartScale& scale) {
  const auto& h = r.recording.item_latency_ns;
  Plot p("item latency CDF", 0, scale.x_max, 100);
  p.axes(linear_ticks(scale.x_max, 8), "item latency from its intended start, backoff included (s)",
         "% of delivered items");
  const std::vector<SvgPoint> points = cdf_points(p, h, ns_to_s);
  const double total = static_cast<double>(h.count());
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
    p.label_beside(x, 4, p.y(m.percent) + (m.percent > 90 ? 12 : -4), label, kInk);
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
    s.y_max =
        std::max(s.y_max, 100.0 * static_cast<double>(b.count) / static_cast<double>(h.count()));
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
    const double share = 100.0 * static_cast<double>(b.count) / static_cast<double>(h.count());
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
    s.y_max = std::max(s.y_max, 100.0 * static_cast<double>(n) / static_cast<double>(h.count()));
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
    const double share = 100.0 * static_cast<double>(counts[i]) / static_cast<double>(h.count());
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

// 7. Response time by send number, of a live run: a CDF per send label.

// The waves chart's ramp, so the 3rd send is the same colour on both.
constexpr std::array<const char*, kSendLabels> kSendColors{
    "#3b4cc0", "#2f86d6", "#1eb0c8", "#22c39a", "#6ccf6a", "#b4d34e", "#e3c83f", "#f6a735",
    "#f27b2c", "#e0512a", "#c6323a", "#a3224a", "#82205a", "#642062", "#471d63", "#2c1a52"};

bool has_responses(const Results& r) {
  const auto& h = r.recording.response_ns_by_send;
  return std::any_of(h.begin(), h.end(), [](const LogHistogram& x) { return x.count() > 0; });
}

double ms_of(std::int64_t ns) {
  return static_cast<double>(ns) / kNsPerMs;
}

ChartScale response_extent(const Results& r, std::int64_t column_ns) {
  ChartScale s{column_ns, 0, 100};
  for (const auto& h : r.recording.response_ns_by_send) s.x_max = std::max(s.x_max, ms_of(h.max()));
  return s;
}

std::string response_chart(const Results& r, const ChartScale& scale) {
  Plot p("response time CDF by send number", 0, scale.x_max, 100);
  p.axes(linear_ticks(scale.x_max, 8), "response time: request written to answer read (ms, wall)",
         "% of answers");
  const auto labels = send_labels();
  for (std::size_t i = 0; i < kSendLabels; ++i) {
    const auto& h = r.recording.response_ns_by_send[i];
    if (h.count() == 0) continue;
    const std::string title = "send " + labels[i] + ": p50 " + format_ns(h.quantile(0.5)) +
                              ", p90 " + format_ns(h.quantile(0.9)) + ", p99 " +
                              format_ns(h.quantile(0.99)) + ", max " + format_ns(h.max()) + " (" +
                              format_count(static_cast<double>(h.count())) + " answers)";
    p.svg().begin_group({{"fill", "none"},
                         {"stroke", kSendColors[i]},
                         {"stroke-width", "1.75"},
                         {"stroke-linejoin", "round"}},
                        title);
    p.svg().polyline(cdf_points(p, h, ms_of));
    p.svg().end_group();
  }
  return p.finish();
}

std::vector<LegendEntry> response_legend(const std::vector<Results>& runs) {
  std::vector<LegendEntry> out;
  const auto labels = send_labels();
  for (std::size_t i = 0; i < kSendLabels; ++i) {
    const bool used = std::any_of(runs.begin(), runs.end(), [&](const Results& r) {
      return r.recording.response_ns_by_send[i].count() > 0;
    });
    if (used) out.push_back({"send " + labels[i], kSendColors[i], LegendEntry::Kind::kLine});
  }
  return out;
}

// 7b. Streamed answers (loadgen run --stream): time to first token and the stream's duration.

constexpr const char* kFirstTokenColor = "#7b3fa0";
constexpr const char* kDurationColor = "#c98a1b";

bool has_streams(const Results& r) {
  return r.recording.streams.any();
}

ChartScale streams_extent(const Results& r, std::int64_t column_ns) {
  const auto& s = r.recording.streams;
  return {column_ns, ms_of(std::max(s.first_token_ns.max(), s.duration_ns.max())), 100};
}

std::string streams_chart(const Results& r, const ChartScale& scale) {
  const auto& s = r.recording.streams;
  Plot p("time to first token and stream duration CDF", 0, scale.x_max, 100);
  p.axes(linear_ticks(scale.x_max, 8), "from the request written (ms, wall)", "% of streams");
  struct Curve {
    const char* name;
    const LogHistogram& h;
    const char* color;
  };
  for (const Curve& line : {Curve{"time to first token", s.first_token_ns, kFirstTokenColor},
                            Curve{"stream duration (completed)", s.duration_ns, kDurationColor}}) {
    if (line.h.count() == 0) continue;
    const std::string title = std::string(line.name) + ": p50 " + format_ns(line.h.quantile(0.5)) +
                              ", p99 " + format_ns(line.h.quantile(0.99)) + ", max " +
                              format_ns(line.h.max()) + " (" +
                              format_count(static_cast<double>(line.h.count())) + " streams)";
    p.svg().begin_group({{"fill", "none"},
                         {"stroke", line.color},
                         {"stroke-width", "2"},
                         {"stroke-linejoin", "round"}},
                        title);
    p.svg().polyline(cdf_points(p, line.h, ms_of));
    p.svg().end_group();
  }
  return p.finish();
}

std::vector<LegendEntry> streams_legend(const std::vector<Results>&) {
  return {{"time to first token (CDF)", kFirstTokenColor, LegendEntry::Kind::kLine},
          {"stream duration, completed streams (CDF)", kDurationColor, LegendEntry::Kind::kLine}};
}

// 8. Dead letters by reason, and the items a stop left unfinished.

constexpr const char* kDeadLetterColor = "#9a3b3b";
constexpr const char* kUnfinishedColor = "#8a8f98";

std::vector<std::pair<std::string, std::int64_t>> dead_letter_bars(const Results& r) {
  std::vector<std::pair<std::string, std::int64_t>> bars(r.recording.dead_letter_reasons.begin(),
                                                         r.recording.dead_letter_reasons.end());
  if (r.recording.unfinished > 0) bars.emplace_back("unfinished", r.recording.unfinished);
  return bars;
}

bool has_dead_letters(const Results& r) {
  return !dead_letter_bars(r).empty();
}

ChartScale dead_letter_extent(const Results& r, std::int64_t column_ns) {
  const auto bars = dead_letter_bars(r);
  ChartScale s{column_ns, static_cast<double>(bars.size()), 0};
  for (const auto& [reason, n] : bars) s.y_max = std::max(s.y_max, static_cast<double>(n));
  return s;
}

std::string dead_letter_chart(const Results& r, const ChartScale& scale) {
  const auto bars = dead_letter_bars(r);
  const double slots = std::max(scale.x_max, static_cast<double>(bars.size()));
  Plot p("dead letters by reason", 0, std::max(slots, 1.0), scale.y_max);
  std::vector<Tick> ticks;
  for (std::size_t i = 0; i < bars.size(); ++i)
    ticks.push_back({static_cast<double>(i) + 0.5, bars[i].first});
  p.axes(ticks, "why the item was given up on", "items");
  const double width = std::min(p.x(1) - p.x(0), 90.0) * 0.7;
  const double total = static_cast<double>(std::max<std::int64_t>(1, r.recording.items));
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& [reason, n] = bars[i];
    const double count = static_cast<double>(n);
    const double cx = p.x(static_cast<double>(i) + 0.5);
    p.svg().begin_group({{"fill", reason == "unfinished" ? kUnfinishedColor : kDeadLetterColor}});
    p.svg().rect(cx - width / 2, p.y(count), width, p.y(0) - p.y(count),
                 reason + ": " + format_count(count) + " items (" +
                     format_count(100.0 * count / total) + "% of " +
                     format_count(static_cast<double>(r.recording.items)) + ")");
    p.svg().end_group();
    p.label(cx, p.y(count) - 4, format_count(count), kInk, SvgWriter::Anchor::kMiddle);
  }
  return p.finish();
}

std::vector<LegendEntry> dead_letter_legend(const std::vector<Results>& runs) {
  std::vector<LegendEntry> out{{"dead-lettered items", kDeadLetterColor}};
  if (std::any_of(runs.begin(), runs.end(),
                  [](const Results& r) { return r.recording.unfinished > 0; }))
    out.push_back({"unfinished when the run stopped", kUnfinishedColor});
  return out;
}

}  // namespace

constexpr ChartKind kResponseChart{has_responses, response_extent, response_chart, response_legend};
constexpr ChartKind kStreamsChart{has_streams, streams_extent, streams_chart, streams_legend};
constexpr ChartKind kDeadLetterChart{has_dead_letters, dead_letter_extent, dead_letter_chart,
                                     dead_letter_legend};
constexpr ChartKind kLatencyChart{has_latency, latency_extent, latency_chart, latency_legend};
constexpr ChartKind kAttemptsChart{has_attempts, attempts_extent, attempts_chart, attempts_legend};
constexpr ChartKind kLatenessChart{has_lateness, lateness_extent, lateness_chart, lateness_legend};

}  // namespace stampede
