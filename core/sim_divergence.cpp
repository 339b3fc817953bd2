#include "sim_divergence.hpp"

#include <algorithm>
#include <cstdlib>

namespace stampede {

std::optional<double> sim_divergence(const BinnedCounts& live, const BinnedCounts& simulated) {
  if (live.bin_ns() != simulated.bin_ns()) return std::nullopt;
  const auto count = [](const BinnedCounts& c, std::size_t bin) {
    return bin < c.bins() ? c.bin_total(bin) : 0;
  };
  std::int64_t moved = std::llabs(live.overflow_total() - simulated.overflow_total());
  std::int64_t live_total = live.overflow_total();
  std::int64_t sim_total = simulated.overflow_total();
  for (std::size_t b = 0; b < std::max(live.bins(), simulated.bins()); ++b) {
    moved += std::llabs(count(live, b) - count(simulated, b));
    live_total += count(live, b);
    sim_total += count(simulated, b);
  }
  const std::int64_t larger = std::max(live_total, sim_total);
  if (larger == 0) return 0.0;
  moved += std::llabs(live_total - sim_total);
  return static_cast<double>(moved) / (2.0 * static_cast<double>(larger));
}

}  // namespace stampede
