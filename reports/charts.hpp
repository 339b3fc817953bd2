#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results.hpp"

namespace stampede {

// One key of a chart's legend, which the page draws once above the chart's panels.
struct LegendEntry {
  enum class Kind { kArea, kLine, kDashed, kShade };
  std::string name;
  std::string color;
  Kind kind = Kind::kArea;
};

// The scale every panel of one chart shares, so a comparison's small multiples are drawn to
// one scale: a lockstep fleet's spikes beside a jittered fleet's plateau.
struct ChartScale {
  std::int64_t column_ns = kNsPerSec;  // time charts: what one drawn column covers
  double x_max = 0;
  double y_max = 0;
  double x_min = 0;  // a panel that starts later (the retries: at the first one)
};

// Time charts draw at most this many columns, so a week-long run's report is no bigger than
// a ten-minute one's: bins, never raw points.
inline constexpr std::size_t kMaxColumns = 600;

// A chart is a function from a run (and the scale it shares with the runs beside it) to an
// SVG element, plus what the page needs around it.
struct Chart {
  std::string_view id;
  std::string_view title;
  std::string_view note;  // what to look for, one sentence
  bool (*applies)(const Results&);
  // The scale this run alone needs; a comparison takes the largest of each axis.
  ChartScale (*extent)(const Results&, std::int64_t column_ns);
  std::string (*draw)(const Results&, const ChartScale&);
  std::vector<LegendEntry> (*legend)(const std::vector<Results>&);
  // The top of this run's columns that a spike flattens on the shared scale, 0 when none
  // does; nullptr: the chart never zooms (tail_zoom).
  double (*tail)(const Results&, const ChartScale&) = nullptr;
};

// The charts of a report, in page order: arrivals by outcome, the waves by send number, the
// retries from the first retry on, status codes, client sends against provider arrivals, a
// trace's arrivals against the first sends and retries, items in backoff, item latency, sends per
// item, wake lateness, response time by send number, time to first token, open streams, 429s by
// the limit that refused, input tokens admitted, output tokens reserved and settled, dead
// letters by reason.
const std::vector<Chart>& report_charts();

// The column width that fits the longest of these runs in kMaxColumns columns.
std::int64_t column_ns_for(const std::vector<Results>& runs);

// The largest extent of each axis over the runs the chart applies to.
ChartScale shared_scale(const Chart& chart, const std::vector<Results>& runs,
                        std::int64_t column_ns);

// When a spike dwarfs the rest of a chart (the first sends or an outage's burst beside a
// fix's low tail), the scale of a second, zoomed panel for the rest: the shared scale topped
// by the largest of the runs' tails. Columns taller than it are cut and marked. None when no
// run's chart is flattened.
std::optional<ChartScale> tail_zoom(const Chart& chart, const std::vector<Results>& runs,
                                    const ChartScale& shared);

// A panel of the same size for a run a chart does not apply to.
std::string placeholder_chart(std::string_view message);

// A legend key's swatch, an SVG of its own.
std::string legend_swatch(const LegendEntry& entry);

}  // namespace stampede
