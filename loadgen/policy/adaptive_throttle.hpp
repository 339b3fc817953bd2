#pragma once

#include <algorithm>

#include "policy/trailing_counts.hpp"
#include "rng.hpp"
#include "scenario.hpp"

namespace stampede {

// Client-side adaptive throttling (Site Reliability Engineering, "Handling Overload"): over
// the trailing window the client counts its requests and the backend's accepts, and rejects a
// request locally with probability max(0, (requests - K * accepts) / (requests + 1)).
class AdaptiveThrottle {
 public:
  explicit AdaptiveThrottle(const AdaptiveThrottleConfig& c) : k_(c.k), counts_(c.window_ns) {}

  double reject_probability(std::int64_t now_ns) {
    const auto requests = static_cast<double>(counts_.total(now_ns, kRequests));
    const auto accepts = static_cast<double>(counts_.total(now_ns, kAccepts));
    return std::max(0.0, (requests - k_ * accepts) / (requests + 1));
  }

  // Draws only while the probability is above zero, so a healthy client's stream is untouched.
  bool rejects(std::int64_t now_ns, Rng& rng) {
    const double p = reject_probability(now_ns);
    return p > 0 && rng.unit() < p;
  }

  // Every attempt counts as a request, the ones rejected locally too.
  void record(std::int64_t now_ns, bool accepted) {
    counts_.add(now_ns, kRequests);
    if (accepted) counts_.add(now_ns, kAccepts);
  }

 private:
  static constexpr int kRequests = 0;
  static constexpr int kAccepts = 1;
  double k_;
  TrailingCounts counts_;
};

}  // namespace stampede
