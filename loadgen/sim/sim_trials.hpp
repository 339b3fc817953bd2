#pragma once

#include <cstdint>

#include "results.hpp"
#include "scenario.hpp"
#include "sim/sim_engine.hpp"

namespace stampede {

// The engine the scenario's mode asks for: simulate (plain) or simulate_occ.
Results simulate_scenario(const Scenario& scenario, const SimOptions& options = {});

// Trial t (counting from 0) runs with the fleet seed `seed + t`: trial 0 is the single run
// of that seed, and the same seed and count give the same trials.
std::uint64_t trial_seed(std::uint64_t seed, std::int64_t trial);

// The scenario's engine (plain or occ mode) once per trial. With more than one, the summary
// is the mean of the trials' summaries, every key; the histograms and counts are trial 0's.
Results simulate_trials(const Scenario& scenario, std::int64_t trials,
                        const SimOptions& options = {});

}  // namespace stampede
