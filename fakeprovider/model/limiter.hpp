#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "rate.hpp"
#include "scenario.hpp"

namespace stampede {

struct LimitVerdict {
  bool admitted = false;
  std::int64_t retry_after_ns = 0;  // when rejected: until the next admission could succeed
  std::int64_t limit = 0;           // for the RateLimit headers
  std::int64_t remaining = 0;
  std::int64_t reset_ns = 0;  // until the quota is whole again
  // Rejected because the cost is more than the whole allowance: no wait admits it, so
  // retry_after_ns means nothing.
  bool too_large = false;
};

// A limiter decides one arrival at a time on the time it is given; it reads no clock and
// takes no lock (the caller serialises), so the simulator and the server share it. An arrival
// costs units of the allowance: one for a request quota, the request's tokens for a token
// quota. It is admitted whole or not at all; a cost of 0 is always admitted.
class Limiter {
 public:
  virtual ~Limiter() = default;
  virtual LimitVerdict try_acquire(std::int64_t now_ns, std::int64_t cost = 1) = 0;
  // Gives back units of an admission made at admitted_ns, as when a reservation is settled for
  // less than it held (docs/LLM.md): the allowance is as if that admission had cost so much
  // less, from now on. Never more than the admission took, never past a whole allowance: a
  // refund of units <= 0 changes nothing, and one for a window gone by is gone with it.
  virtual void refund(std::int64_t now_ns, std::int64_t admitted_ns, std::int64_t units) = 0;
};

// Fixed windows aligned to the scenario start: [0, w), [w, 2w), ...
class FixedWindowLimiter final : public Limiter {
 public:
  explicit FixedWindowLimiter(Rate rate) : rate_(rate) {}
  LimitVerdict try_acquire(std::int64_t now_ns, std::int64_t cost = 1) override;
  void refund(std::int64_t now_ns, std::int64_t admitted_ns, std::int64_t units) override;

 private:
  Rate rate_;
  std::int64_t window_ = -1;
  std::int64_t used_ = 0;
};

// An exact sliding log: no window of the rate's length ever holds more than its count. The
// log holds the admissions of the last window only, so it grows with the traffic admitted,
// not with the count: an allowance of 10^12/h costs nothing until requests come, and each
// new tenant a client invents costs a few bytes. An admission of cost n is one entry.
class SlidingWindowLimiter final : public Limiter {
 public:
  explicit SlidingWindowLimiter(Rate rate) : rate_(rate) {}
  LimitVerdict try_acquire(std::int64_t now_ns, std::int64_t cost = 1) override;
  void refund(std::int64_t now_ns, std::int64_t admitted_ns, std::int64_t units) override;

 private:
  struct Admission {
    std::int64_t t_ns;
    std::int64_t cost;
  };
  Rate rate_;
  std::deque<Admission> admitted_;  // oldest first
  std::int64_t used_ = 0;           // the costs in admitted_
};

// GCRA, the token bucket's exact integer form: at most burst + rate * t in any span t. A cost
// of n moves the theoretical arrival time n emission intervals on.
class TokenBucketLimiter final : public Limiter {
 public:
  TokenBucketLimiter(Rate rate, std::int64_t burst) : rate_(rate), burst_(burst) {}
  LimitVerdict try_acquire(std::int64_t now_ns, std::int64_t cost = 1) override;
  // Moves the theoretical arrival time back units emission intervals, never before now (a
  // full bucket): the refund is in the bucket at once, and refills on from there.
  void refund(std::int64_t now_ns, std::int64_t admitted_ns, std::int64_t units) override;

 private:
  Rate rate_;
  std::int64_t burst_;
  // Theoretical arrival time, scaled by rate_.count so an emission interval of
  // window / count stays an integer.
  __int128 tat_scaled_ = 0;
};

// One second of allowance, at least 1: a burst the size of the per-second rate.
std::int64_t default_burst(const Rate& rate);

// What a quota counts: requests (the allowance, the capacity) or a request's tokens.
enum class QuotaUnit { kRequests, kTokens };

// The limiter that enforces a kind at a rate. Named kinds are themselves. per-second, the
// default, enforces a request quota one second at a time, as OpenAI documents that it enforces
// its per-minute limits: a per-second quota in fixed one-second windows, a longer one as a
// token bucket refilling continuously and holding one second's worth (default_burst), so
// 4000/min admits 66 at once and one every 15 ms after, never the whole minute at once. A
// token quota keeps its whole window (a fixed window) so that one request as large as the
// window's tokens still fits.
LimiterKind enforced_kind(LimiterKind kind, const Rate& rate,
                          QuotaUnit unit = QuotaUnit::kRequests);

std::unique_ptr<Limiter> make_limiter(LimiterKind kind, const Rate& rate,
                                      std::optional<std::int64_t> burst,
                                      QuotaUnit unit = QuotaUnit::kRequests);

// The input and output token limits (docs/LLM.md): per-second, the default, is a token bucket
// that holds the whole window's tokens and refills continuously, as Anthropic documents its
// ITPM and OTPM limits, so a 4,000-token request fits 10,000/min and what one answer gives
// back is usable at once; a named kind is itself, holding the whole window.
std::unique_ptr<Limiter> make_split_token_limiter(LimiterKind kind, const Rate& rate);

}  // namespace stampede
