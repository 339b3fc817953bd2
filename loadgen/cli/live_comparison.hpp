#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "results.hpp"

namespace stampede {

// How far a live run is from the simulation of the same scenario and seed: the headline
// numbers side by side, and the arrivals per second bin by bin (the provider's when the run
// has them, the clients' sends otherwise).
// {"simulated": {...}, "live": {...}, "difference": {...live - simulated},
//  "arrivals_per_second": {"seconds": 544, "seconds_differing": 0, "abs_difference": 0,
//                          "sim_divergence": 0},
//  "matches": true}
nlohmann::json compare_with_simulation(const Results& live, const Results& simulated);

// The comparison's sim_divergence into the summary; false when it has none (the two were
// binned differently), and a check on it must fail.
bool take_divergence(const nlohmann::json& comparison, Summary& s);

// Two lines for the terminal.
std::string format_comparison(const nlohmann::json& comparison);

}  // namespace stampede
