#include "hop_delay.hpp"

#include <cmath>
#include <numbers>

namespace stampede {

std::int64_t draw_hop_ns(const HopDelay& hop, Rng& rng) {
  if (hop.sd_ns == 0) return hop.mean_ns;
  const double u1 = 1.0 - rng.unit();  // (0, 1]: the logarithm stays finite
  const double u2 = rng.unit();
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  return std::llround(
      std::fabs(static_cast<double>(hop.mean_ns) + static_cast<double>(hop.sd_ns) * z));
}

}  // namespace stampede
