#pragma once

#include <cstdint>

#include "rng.hpp"

namespace stampede {

// One network hop between a client and the provider, normal and folded at zero: the
// simulator's network in occ mode (fleet.hop_delay), and the one fakeprovider emulates on a
// real network that is far faster (provider.hop_delay), so the two are the same experiment.
struct HopDelay {
  std::int64_t mean_ns = 10'000'000;
  std::int64_t sd_ns = 2'000'000;
  bool operator==(const HopDelay&) const = default;
};

// One hop: normal(mean, sd) folded at zero (Box-Muller, two draws; none when sd is 0).
std::int64_t draw_hop_ns(const HopDelay& hop, Rng& rng);

}  // namespace stampede
