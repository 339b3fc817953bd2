#pragma once

#include <optional>

#include "binned_counts.hpp"

namespace stampede {

// How far a live run's arrivals per second are from its own simulation's: the share of
// requests that would have to move to another second, be added or be removed to turn the live
// counts into the simulated ones,
//   (sum over seconds of |live - simulated| + |live total - simulated total|) / (2 max(totals))
// (the arrivals past the last bin are one more second). 0: the same second by second; 1: no
// request in a second the simulation has one. With equal totals it is the share of requests
// that landed in another second. 0 when neither has a request; none when the two are binned
// differently, and no second can be set against another.
std::optional<double> sim_divergence(const BinnedCounts& live, const BinnedCounts& simulated);

// A divergence above this share is said first in the summary: a live run that far from its
// simulation measured something other than the scenario (docs/RESULTS.md, sim_divergence).
inline constexpr double kLoudDivergence = 0.05;

}  // namespace stampede
