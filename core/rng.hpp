#pragma once

#include <cstdint>

namespace stampede {

// SplitMix64: 8 bytes of state, so a million clients each own a stream. Every draw is
// computed here rather than by <random> distributions, whose output differs between
// standard libraries: the same seed must give the same run everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform in [lo, hi); lo when the range is empty.
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<std::int64_t>(unit() * static_cast<double>(hi - lo));
  }

 private:
  std::uint64_t state_;
};

// The stream of one client (or the provider, or one shard): independent of how many other
// streams exist, so a client's draws do not change when the fleet grows.
inline Rng make_stream(std::uint64_t seed, std::uint64_t stream_id) {
  Rng mixer(seed ^ (stream_id * 0xD1B54A32D192ED03ULL));
  mixer.next();
  return Rng(mixer.next());
}

}  // namespace stampede
