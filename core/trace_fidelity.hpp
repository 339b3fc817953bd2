#pragma once

#include <cstddef>
#include <cstdint>

#include "binned_counts.hpp"
#include "log_histogram.hpp"

namespace stampede {

// How faithfully a fleet replayed a trace (docs/RESULTS.md, the trace section): pure functions
// of what the results keep, so a merged document's figures are computed as a single run's.

// The bin where two per-bin counts differ most, and by how much (absolute).
struct BinDifference {
  std::int64_t count = 0;
  double at_s = 0;  // the bin's start
};

// The largest |a's label - b's label| of any bin, the overflow bin past the last included.
// Both must have the same bin width (the caller checks documents it reads).
BinDifference largest_bin_difference(const BinnedCounts& a, std::size_t a_label,
                                     const BinnedCounts& b, std::size_t b_label);

// The Kolmogorov-Smirnov distance of two distributions binned alike (LogHistogram's buckets,
// exact below 128 and within 1/128 above): the largest gap between their cumulative shares at
// the end of any bucket. 0 for two empty ones, 1 when only one has values: the bins, never the
// values, so that it costs the same for ten values or ten million.
double ks_distance(const LogHistogram& a, const LogHistogram& b);

}  // namespace stampede
