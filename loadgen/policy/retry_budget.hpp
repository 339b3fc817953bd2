#pragma once

#include <algorithm>

#include "scenario.hpp"

namespace stampede {

// gRPC retry throttling: a client starts with max_tokens; each failure costs one, each
// success refunds token_ratio; retries are allowed while more than half the tokens remain.
class RetryBudget {
 public:
  explicit RetryBudget(const RetryBudgetConfig& c) : config_(c), tokens_(c.max_tokens) {}

  void on_success() { tokens_ = std::min(config_.max_tokens, tokens_ + config_.token_ratio); }
  void on_failure() { tokens_ = std::max(0.0, tokens_ - 1.0); }
  bool allows_retry() const { return tokens_ > config_.max_tokens / 2; }
  double tokens() const { return tokens_; }

 private:
  RetryBudgetConfig config_;
  double tokens_;
};

}  // namespace stampede
