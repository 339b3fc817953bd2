#pragma once

// The charts the registry (report_charts() in charts.cpp) is made of. Internal to the report
// library: each chart's functions stay file-local in time_charts.cpp or
// distribution_charts.cpp, and only this handle on them leaves the file.

#include <cstdint>
#include <string>
#include <vector>

#include "charts.hpp"
#include "results.hpp"

namespace stampede {

// One layer of a stacked time chart: its name, its colour, and the histogram labels it adds
// up. The live dashboard stacks the same layers in the same colours.
struct Layer {
  std::string name;
  std::string color;
  std::vector<std::size_t> labels;
};
// Arrivals by outcome: ok, 429, 5xx (503, 529 and the rest), other.
const std::vector<Layer>& outcome_layers();
// Sends by send number: 1st ... 15th, 16th+.
const std::vector<Layer>& send_layers();

// A Chart less what the page says about it (its id, title and note), which the registry
// keeps in one place.
struct ChartKind {
  bool (*applies)(const Results&);
  ChartScale (*extent)(const Results&, std::int64_t column_ns);
  std::string (*draw)(const Results&, const ChartScale&);
  std::vector<LegendEntry> (*legend)(const std::vector<Results>&);
  double (*tail)(const Results&, const ChartScale&) = nullptr;
};

// time_charts.cpp
extern const ChartKind kArrivalsChart;      // arrivals by outcome
extern const ChartKind kWavesChart;         // sends by send number
extern const ChartKind kRetriesChart;       // the retries alone, from the first retry on
extern const ChartKind kStatusesChart;      // the statuses the clients read
extern const ChartKind kFidelityChart;      // client sends against provider arrivals
extern const ChartKind kTraceChart;         // a trace's arrivals against first sends and retries
extern const ChartKind kBackoffChart;       // items waiting in backoff
extern const ChartKind kOpenStreamsChart;   // streamed answers open over time
extern const ChartKind kInputTokensChart;   // input tokens admitted against their allowances
extern const ChartKind kOutputTokensChart;  // output tokens reserved against those settled
extern const ChartKind kRefusalsChart;      // 429s by the limit that refused

// distribution_charts.cpp
extern const ChartKind kLatencyChart;     // item latency, as a CDF
extern const ChartKind kAttemptsChart;    // sends per item
extern const ChartKind kLatenessChart;    // wake lateness of a live run
extern const ChartKind kResponseChart;    // response time by send number, of a live run
extern const ChartKind kStreamsChart;     // streamed answers: time to first token, duration
extern const ChartKind kDeadLetterChart;  // dead letters by reason

}  // namespace stampede
