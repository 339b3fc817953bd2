#pragma once

#include "policy/trailing_counts.hpp"
#include "scenario.hpp"

namespace stampede {

// The SRE book's per-client retry budget: a failed request is retried only while retries are
// below the ratio of the requests in the trailing window.
class RetryRatioBudget {
 public:
  explicit RetryRatioBudget(const RetryRatioConfig& c) : ratio_(c.ratio), counts_(c.window_ns) {}

  void record(std::int64_t now_ns, bool retry) {
    counts_.add(now_ns, kRequests);
    if (retry) counts_.add(now_ns, kRetries);
  }

  bool allows_retry(std::int64_t now_ns) {
    return static_cast<double>(counts_.total(now_ns, kRetries)) <
           ratio_ * static_cast<double>(counts_.total(now_ns, kRequests));
  }

 private:
  static constexpr int kRequests = 0;
  static constexpr int kRetries = 1;
  double ratio_;
  TrailingCounts counts_;
};

}  // namespace stampede
