#include "provider_policy.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

#include <nlohmann/json.hpp>

#include "duration.hpp"

namespace stampede {
namespace {
constexpr std::uint64_t kProviderStream = 0xFFFF'FFFF'FFFF'FFFFULL;
}

std::string_view to_string(DecisionReason r) {
  switch (r) {
    case DecisionReason::kServed:
      return "served";
    case DecisionReason::kOutage:
      return "outage";
    case DecisionReason::kInjectedError:
      return "injected_error";
    case DecisionReason::kCapacity:
      return "capacity";
    case DecisionReason::kAllowance:
      return "request_rate_exceeded";
    case DecisionReason::kTokens:
      return "token_rate_exceeded";
    case DecisionReason::kSpendCap:
      return "spend_cap_exceeded";
    case DecisionReason::kTooLarge:
      return "request_too_large";
    case DecisionReason::kBadTokens:
      return "invalid_tokens";
    case DecisionReason::kStoreUnavailable:
      return "store_unavailable";
  }
  return "?";
}

DeclaredTokens parse_declared_tokens(const char* header_value) {
  if (!header_value) return {};
  const char* end = header_value + std::strlen(header_value);
  std::int64_t n = 0;
  const auto [at, ec] = std::from_chars(header_value, end, n);
  if (ec != std::errc{} || at != end || at == header_value || n < 0) return {std::nullopt, true};
  return {n, false};
}

DeclaredTokens declared_tokens_in_body(std::string_view body, std::string_view field) {
  if (body.empty()) return {};
  const auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {std::nullopt, true};
  const auto it = j.find(field);
  if (it == j.end()) return {};
  if (it->is_number_unsigned() && it->get<std::uint64_t>() <= INT64_MAX)
    return {static_cast<std::int64_t>(it->get<std::uint64_t>()), false};
  // nlohmann reads a non-negative integer as unsigned: anything else is not a count.
  return {std::nullopt, true};
}

std::int64_t retry_after_seconds(std::int64_t retry_after_ns) {
  const std::int64_t s = (retry_after_ns + kNsPerSec - 1) / kNsPerSec;
  return s < 1 ? 1 : s;
}

ProviderPolicy::ProviderPolicy(const ProviderConfig& config, SharedQuota* shared)
    : config_(config), shared_(shared), rng_(make_stream(config.seed, kProviderStream)) {
  if (config_.capacity && !shared_)
    capacity_ = make_limiter(config_.limiter, *config_.capacity, config_.burst);
}

void ProviderPolicy::add_outage(const OutageWindow& window) {
  config_.outages.push_back(window);
}

std::optional<Decision> ProviderPolicy::outage(std::int64_t now_ns) const {
  for (const auto& w : config_.outages) {
    if (now_ns < w.start_ns || now_ns >= w.end_ns) continue;
    Decision d;
    d.reason = DecisionReason::kOutage;
    switch (w.action) {
      case OutageAction::kStatus503:
        d.status = 503;
        break;
      case OutageAction::kStatus529:
        d.status = 529;
        break;
      case OutageAction::kStatus500:
        d.status = 500;
        break;
      case OutageAction::kReset:
        d.status = 0;
        d.reset_connection = true;
        break;
    }
    if (config_.retry_after && !d.reset_connection) d.retry_after_ns = w.end_ns - now_ns;
    return d;
  }
  return std::nullopt;
}

Decision ProviderPolicy::quota_rejection(const LimitVerdict& v, int status,
                                         DecisionReason reason) const {
  Decision d;
  d.status = status;
  d.reason = reason;
  if (config_.retry_after) d.retry_after_ns = v.retry_after_ns;
  d.has_quota = true;
  d.limit = v.limit;
  d.remaining = v.remaining;
  d.reset_ns = v.reset_ns;
  return d;
}

ProviderPolicy::TenantQuota& ProviderPolicy::tenant_quota(std::string_view tenant) {
  // Most runs have one tenant: skip the hash when it is the same as last time.
  if (last_quota_ && tenant == last_tenant_) return *last_quota_;
  auto it = tenants_.find(std::string(tenant));
  if (it == tenants_.end()) {
    TenantQuota q;
    if (config_.allowance)
      q.requests = make_limiter(config_.limiter, *config_.allowance, config_.burst);
    // A token bucket holds the whole window's tokens, as Anthropic's does: a one-second burst
    // would turn away any request larger than a second's worth.
    if (config_.token_allowance) {
      q.tokens =
          make_limiter(config_.limiter, *config_.token_allowance, config_.token_allowance->count);
    }
    it = tenants_.emplace(std::string(tenant), std::move(q)).first;
  }
  last_tenant_ = std::string(tenant);
  last_quota_ = &it->second;
  return *last_quota_;
}

// The request allowance's verdict: its 429, or its numbers written into `served`.
std::optional<Decision> ProviderPolicy::request_rejection(const LimitVerdict& v,
                                                          Decision& served) const {
  if (!v.admitted) {
    auto r = quota_rejection(v, 429, DecisionReason::kAllowance);
    r.window_ns = config_.allowance->window_ns;
    return r;
  }
  served.has_quota = true;
  served.limit = v.limit;
  served.remaining = v.remaining;
  served.reset_ns = v.reset_ns;
  served.window_ns = config_.allowance->window_ns;
  return std::nullopt;
}

// Capacity and the request allowance as the shared store decides them, on its clock.
std::optional<Decision> ProviderPolicy::shared_rejection(std::int64_t now_ns,
                                                         std::string_view tenant,
                                                         Decision& served) {
  const QuotaVerdicts q = shared_->decide(now_ns, tenant);
  if (q.unavailable) {
    Decision d;
    d.status = 503;
    d.reason = DecisionReason::kStoreUnavailable;
    if (config_.retry_after) d.retry_after_ns = kNsPerSec;
    return d;
  }
  std::optional<Decision> r;
  if (q.capacity && !q.capacity->admitted) {
    r = quota_rejection(*q.capacity, 529, DecisionReason::kCapacity);
  } else if (q.allowance) {
    r = request_rejection(*q.allowance, served);
  }
  served.quota_t_ns = q.t_ns;
  if (r) r->quota_t_ns = q.t_ns;
  return r;
}

// Capacity, then the tenant's quotas, all in this process.
std::optional<Decision> ProviderPolicy::local_rejection(std::int64_t now_ns,
                                                        std::string_view tenant, std::int64_t cost,
                                                        Decision& served) {
  if (capacity_) {
    const auto v = capacity_->try_acquire(now_ns);
    if (!v.admitted) return quota_rejection(v, 529, DecisionReason::kCapacity);
  }
  if (!config_.allowance && !config_.token_allowance && !config_.spend_cap) return std::nullopt;
  return tenant_rejection(now_ns, tenant_quota(tenant), cost, served);
}

// The tenant's quotas in order; each one that admits writes its numbers into `served`.
std::optional<Decision> ProviderPolicy::tenant_rejection(std::int64_t now_ns, TenantQuota& q,
                                                         std::int64_t cost, Decision& served) {
  if (config_.spend_cap && cost > *config_.spend_cap - q.spent) {
    // Spent for good: a retry cannot succeed, so no Retry-After and x-should-retry: false.
    Decision d;
    d.status = 429;
    d.reason = DecisionReason::kSpendCap;
    d.should_retry = false;
    return d;
  }
  if (q.requests) {
    if (auto r = request_rejection(q.requests->try_acquire(now_ns), served)) return r;
  }
  if (q.tokens) {
    const auto v = q.tokens->try_acquire(now_ns, cost);
    served.tokens = QuotaNumbers{v.limit, v.remaining, v.reset_ns};
    if (!v.admitted) {
      // The request numbers stay: this request used its request allowance.
      Decision r = served;
      r.status = 429;
      r.reason = v.too_large ? DecisionReason::kTooLarge : DecisionReason::kTokens;
      r.should_retry = !v.too_large;
      if (config_.retry_after && !v.too_large) r.retry_after_ns = v.retry_after_ns;
      return r;
    }
  }
  q.spent += cost;
  return std::nullopt;
}

Decision ProviderPolicy::admit(std::int64_t now_ns, std::string_view tenant,
                               const DeclaredTokens& tokens) {
  if (auto d = outage(now_ns)) return *d;
  if (tokens.malformed) {
    Decision d;
    d.status = 400;
    d.reason = DecisionReason::kBadTokens;
    return d;
  }
  if (config_.error_rate > 0 && rng_.unit() < config_.error_rate) {
    Decision d;
    d.status = 400;
    d.reason = DecisionReason::kInjectedError;
    return d;
  }
  Decision d;
  const std::int64_t cost = tokens.count.value_or(config_.default_tokens);
  auto rejection =
      shared_ ? shared_rejection(now_ns, tenant, d) : local_rejection(now_ns, tenant, cost, d);
  if (rejection) return *rejection;
  d.service_ns = config_.latency_min_ns;
  if (config_.latency_max_ns > config_.latency_min_ns) {
    d.service_ns = rng_.uniform(config_.latency_min_ns, config_.latency_max_ns);
  }
  return d;
}

}  // namespace stampede
