#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/limiter.hpp"
#include "model/reservation.hpp"
#include "parsed.hpp"
#include "scenario.hpp"

namespace stampede {

// What the quota layers said about one arrival: each limit's verdict, absent when that limit
// is not configured or was not consulted (the allowance after capacity rejected). The order,
// first rejection wins: capacity, the spend cap, the request allowance, the token allowance.
struct QuotaVerdicts {
  std::optional<LimitVerdict> capacity;
  bool spend_capped = false;  // the cost is more than what is left of the spend cap
  std::optional<LimitVerdict> allowance;
  // In process: the request allowance's window, which a model's own (provider.models) may set;
  // 0: the provider's.
  std::int64_t allowance_window_ns = 0;
  std::optional<LimitVerdict> tokens;  // the token allowance, at the request's cost
  // In process only, for an LLM request (docs/LLM.md): its answers open against
  // provider.max_concurrent, its input tokens, its output tokens reserved at max_tokens.
  std::optional<LimitVerdict> concurrency;
  std::optional<LimitVerdict> input_tokens;
  std::optional<LimitVerdict> output_tokens;
  Reservation held;  // what an admission holds until its answer ends
  // The scenario time the limits decided at: the arrival's, or later when a shared store had
  // already decided a later arrival of another replica (limits need time in order).
  std::int64_t t_ns = 0;
  bool unavailable = false;  // the shared store could not be asked: answer 503
};

// Quota state that lives outside the process (several replicas enforce one allowance). The
// caller serialises calls, as for the in-process limiters. cost: the request's tokens, for the
// spend cap and the token allowance; it is spent only when every layer admitted.
class SharedQuota {
 public:
  virtual ~SharedQuota() = default;
  virtual QuotaVerdicts decide(std::int64_t now_ns, std::string_view tenant, std::int64_t cost) = 0;
};

// One limit as a script without 64-bit integers (Redis Lua numbers are doubles) computes it
// with the in-process limiters' exact arithmetic: every value it handles stays an integer
// below 2^53. The token bucket's theoretical arrival time is kept scaled by
// count / gcd(count, window) instead of count: the same ratios, far smaller numbers (1 for
// 100/s or 6000/min).
struct ScriptLimit {
  LimiterKind kind = LimiterKind::kFixedWindow;  // as enforced_kind says: never per-second
  std::int64_t count = 0;
  std::int64_t window_ns = 0;
  std::int64_t scale = 1;      // token bucket: count / gcd(count, window)
  std::int64_t interval = 0;   // token bucket: window / gcd, the emission interval scaled
  std::int64_t tolerance = 0;  // token bucket: (burst - 1) * interval
  std::int64_t burst = 0;
  // Scenario time up to which every value stays below 2^53 (exact as a double).
  std::int64_t exact_until_ns = 0;
};

// The limit for a script, or why a script cannot hold it exactly for at least min_horizon_ns
// of scenario time.
Parsed<ScriptLimit> script_limit(LimiterKind kind, const Rate& rate,
                                 std::optional<std::int64_t> burst, std::int64_t min_horizon_ns,
                                 QuotaUnit unit = QuotaUnit::kRequests);

// The quota layers of a provider for a script; absent where the provider has no such limit.
// The token allowance's bucket holds the whole window's tokens, as in process.
struct ScriptLimits {
  std::optional<ScriptLimit> capacity;
  std::optional<ScriptLimit> allowance;
  std::optional<ScriptLimit> tokens;
  std::optional<std::int64_t> spend_cap;  // below 2^53
};
// A week of scenario time: longer than any run a scenario describes.
inline constexpr std::int64_t kScriptHorizonNs = 7 * 24 * 3600 * 1'000'000'000LL;
Parsed<ScriptLimits> script_limits(const ProviderConfig& config,
                                   std::int64_t min_horizon_ns = kScriptHorizonNs);

// --store redis://HOST[:PORT][/PREFIX]: every key the store writes starts with PREFIX, so
// several runs (or tests) can share one Redis.
struct RedisTarget {
  std::string host;
  int port = 6379;
  std::string prefix = "stampede";
  std::string where() const { return host + ":" + std::to_string(port); }
};
Parsed<RedisTarget> parse_redis_url(std::string_view url);

}  // namespace stampede
