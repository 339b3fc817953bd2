#pragma once

#include <algorithm>
#include <cstdint>

#include "saturating.hpp"
#include "scenario.hpp"

namespace stampede {

// Closed until `failures` answers in a row fail; then open for the cool-down, during which
// the client sends nothing; then half-open: one probe decides between closed and open again.
class CircuitBreaker {
 public:
  enum class State { kClosed, kOpen, kHalfOpen };

  explicit CircuitBreaker(const BreakerConfig& c) : config_(c) {}

  void on_success() {
    state_ = State::kClosed;
    consecutive_ = 0;
  }

  void on_failure(std::int64_t now_ns) {
    ++consecutive_;
    if (state_ == State::kHalfOpen || consecutive_ >= config_.failures) {
      state_ = State::kOpen;
      open_until_ns_ = saturating_add(now_ns, config_.cooldown_ns);
    }
  }

  // The earliest time at or after `now_ns` a request may go; an open breaker that has cooled
  // down lets the next one through as the probe.
  std::int64_t permit_at(std::int64_t now_ns) {
    const std::int64_t at = peek_permit_at(now_ns);
    if (state_ == State::kOpen) state_ = State::kHalfOpen;
    return at;
  }
  // The same time, letting no probe through.
  std::int64_t peek_permit_at(std::int64_t now_ns) const {
    return state_ == State::kOpen ? std::max(now_ns, open_until_ns_) : now_ns;
  }

  State state() const { return state_; }

 private:
  BreakerConfig config_;
  State state_ = State::kClosed;
  std::int64_t consecutive_ = 0;
  std::int64_t open_until_ns_ = 0;
};

}  // namespace stampede
