#pragma once

#include <algorithm>

#include "scenario.hpp"

namespace stampede {

// The AWS SDKs' retry quota (botocore retries/quota.py and RetryQuotaChecker, standard mode):
// a client's bucket starts full; every retry must take its cost from it (more after a
// timeout) or is not made; a success gives back what its item's last retry took, or the
// refund when it needed no retry. A client works one item at a time, so the quota remembers
// what the current item holds.
class RetryQuota {
 public:
  explicit RetryQuota(const RetryQuotaConfig& c) : config_(c), available_(c.capacity) {}

  // Takes one retry's cost; false, and nothing taken, when the bucket cannot pay it.
  bool acquire(bool after_timeout) {
    const double cost = after_timeout ? config_.timeout_cost : config_.retry_cost;
    if (cost > available_) return false;
    available_ -= cost;
    held_ = cost;
    return true;
  }

  void on_success() {
    available_ =
        std::min(config_.capacity, available_ + (held_ > 0 ? held_ : config_.success_refund));
    held_ = 0;
  }

  // The item gave up: what it took stays spent.
  void on_give_up() { held_ = 0; }

  double available() const { return available_; }

 private:
  RetryQuotaConfig config_;
  double available_;
  double held_ = 0;
};

}  // namespace stampede
