#include "model/shared_quota.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>
#include <tuple>

#include "duration.hpp"

namespace stampede {
namespace {
constexpr __int128 kExactLimit = __int128{1} << 53;  // doubles hold every integer below it
}

Parsed<ScriptLimit> script_limit(LimiterKind named, const Rate& rate,
                                 std::optional<std::int64_t> burst, std::int64_t min_horizon_ns,
                                 QuotaUnit unit) {
  const LimiterKind kind = enforced_kind(named, rate, unit);
  ScriptLimit l;
  l.kind = kind;
  l.count = rate.count;
  l.window_ns = rate.window_ns;
  l.burst = rate.count;
  __int128 largest_state = rate.window_ns;  // a window end or a log entry's expiry beyond now
  std::int64_t time_factor = 1;
  if (kind == LimiterKind::kTokenBucket) {
    const std::int64_t g = std::gcd(rate.count, rate.window_ns);
    l.scale = rate.count / g;
    l.interval = rate.window_ns / g;
    l.burst = burst.value_or(default_burst(rate));
    const __int128 tolerance = static_cast<__int128>(l.burst - 1) * l.interval;
    largest_state = tolerance + l.interval;
    time_factor = l.scale;
    if (largest_state < kExactLimit) l.tolerance = static_cast<std::int64_t>(tolerance);
  }
  const __int128 room = kExactLimit - largest_state;
  l.exact_until_ns = room > 0 ? static_cast<std::int64_t>(room / time_factor) : 0;
  if (rate.count >= kExactLimit || l.exact_until_ns < min_horizon_ns) {
    return Parsed<ScriptLimit>::fail(
        "a " + std::string(to_string(kind)) + " of " + std::to_string(rate.count) + " per " +
        format_duration(rate.window_ns) +
        " is beyond the Redis store's exact arithmetic (integers below 2^53, for " +
        format_duration(min_horizon_ns) + " of scenario time); run it in process (no --store)");
  }
  return Parsed<ScriptLimit>::ok(l);
}

}  // namespace stampede

namespace stampede {

Parsed<ScriptLimits> script_limits(const ProviderConfig& config, std::int64_t min_horizon_ns) {
  ScriptLimits limits;
  // The token allowance's burst is its whole window, as tenant_quota builds it in process.
  const std::optional<std::int64_t> token_burst =
      config.token_allowance ? std::optional<std::int64_t>(config.token_allowance->count)
                             : std::nullopt;
  constexpr auto kRequests = QuotaUnit::kRequests;
  for (auto [rate, burst, unit, out, name] :
       {std::tuple{&config.capacity, config.burst, kRequests, &limits.capacity, "--capacity"},
        std::tuple{&config.allowance, config.burst, kRequests, &limits.allowance, "--allowance"},
        std::tuple{&config.token_allowance, token_burst, QuotaUnit::kTokens, &limits.tokens,
                   "--token-allowance"}}) {
    if (!*rate) continue;
    auto l = script_limit(config.limiter, **rate, burst, min_horizon_ns, unit);
    if (!l) return Parsed<ScriptLimits>::fail(std::string(name) + ": " + l.error());
    *out = *l;
  }
  if (config.spend_cap) {
    if (*config.spend_cap >= kExactLimit) {
      return Parsed<ScriptLimits>::fail(
          "--spend-cap: " + std::to_string(*config.spend_cap) +
          " is beyond the Redis store's exact arithmetic (integers below 2^53); run it in "
          "process (no --store)");
    }
    limits.spend_cap = config.spend_cap;
  }
  return Parsed<ScriptLimits>::ok(limits);
}

Parsed<RedisTarget> parse_redis_url(std::string_view url) {
  const auto fail = [&](const std::string& why) {
    return Parsed<RedisTarget>::fail("'" + std::string(url) + "' " + why +
                                     "; expected redis://HOST[:PORT][/PREFIX], e.g. "
                                     "redis://127.0.0.1:6379/run1");
  };
  constexpr std::string_view kScheme = "redis://";
  if (!url.starts_with(kScheme)) return fail("is not a redis:// URL");
  std::string_view rest = url.substr(kScheme.size());
  RedisTarget t;
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    t.prefix = std::string(rest.substr(slash + 1));
    rest = rest.substr(0, slash);
    // Key patterns (SCAN MATCH) must not see glob characters in it.
    const bool plain =
        !t.prefix.empty() && std::all_of(t.prefix.begin(), t.prefix.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
        });
    if (!plain) return fail("has a prefix that is not letters, digits, '-', '_' or '.'");
  }
  if (rest.find('@') != std::string_view::npos) return fail("has credentials, not supported");
  if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    const std::string_view port = rest.substr(colon + 1);
    int p = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc{} || end != port.data() + port.size() || p < 1 || p > 65535) {
      return fail("has no port 1-65535 after ':'");
    }
    t.port = p;
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return fail("has no host");
  t.host = std::string(rest);
  return Parsed<RedisTarget>::ok(t);
}

}  // namespace stampede
