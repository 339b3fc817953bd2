#pragma once

// What a failed check means and what to change: docs/READING.md's advice, carried in the
// report, which travels alone (a CI artifact) where the guide is not at hand. Pure: no I/O.

#include <string>
#include <string_view>
#include <vector>

#include "assertion.hpp"
#include "results.hpp"

namespace stampede {

struct CheckAdvice {
  std::string topic;   // what the failure says about the fleet: "the herd"
  std::string change;  // what to change, in the flags of loadgen's fleet
};

// Whether the fleet's strategy jitters its waits: the first advice for a herd or a slow drain
// is to add jitter, which a jittered fleet has done.
enum class FleetJitter { kUnknown, kNone, kJitters };
FleetJitter fleet_jitter(const Results& r);

// The advice for a failed check on this metric. Metrics that fail for one cause share one
// advice (peak_ratio and peak_retry_ratio: the herd); a metric the guide has nothing on gets
// its meaning, never an empty advice.
CheckAdvice advice_for(std::string_view metric, FleetJitter jitter = FleetJitter::kUnknown);

// The metric a check's text names ("peak_ratio <= 2": "peak_ratio"); "" when the text is not
// a check this version reads.
std::string checked_metric(std::string_view check);

// How far a failed check missed, in the metric's unit: "measured 10, needs <= 2: 5x the
// limit"; a refused one: why it could not be judged.
std::string miss_text(const Verdict& v);

// The checks as a report shows them: one per text, its first verdict (a document written
// before duplicates were merged may hold a check twice).
std::vector<Verdict> distinct_verdicts(const std::vector<Verdict>& verdicts);

}  // namespace stampede
