#include "sim/sim_trials.hpp"

#include "sim/occ_sim.hpp"

namespace stampede {
Results simulate_scenario(const Scenario& s, const SimOptions& options) {
  return s.provider.mode == ProviderMode::kOcc ? simulate_occ(s, options) : simulate(s, options);
}

std::uint64_t trial_seed(std::uint64_t seed, std::int64_t trial) {
  return seed + static_cast<std::uint64_t>(trial);
}

Results simulate_trials(const Scenario& scenario, std::int64_t trials, const SimOptions& options) {
  Results first = simulate_scenario(scenario, options);
  if (trials <= 1) return first;
  // A trace that could not be played through: the command reports its error, not the means.
  if (options.played && !options.played->total()) return first;
  Summary sum = first.summary;
  Scenario s = scenario;
  // The arrivals kept are the first seed's: later trials read the trace with their own, as
  // many as the first counted.
  s.fleet.items = first.scenario.fleet.items;
  SimOptions later = options;
  later.played = nullptr;
  for (std::int64_t t = 1; t < trials; ++t) {
    s.fleet.seed = trial_seed(scenario.fleet.seed, t);
    const Summary one = simulate_scenario(s, later).summary;
    for (const auto& m : kMetrics) sum.*(m.field) += one.*(m.field);
  }
  for (const auto& m : kMetrics) sum.*(m.field) /= static_cast<double>(trials);
  first.summary = sum;
  first.trials = trials;
  return first;
}

}  // namespace stampede
