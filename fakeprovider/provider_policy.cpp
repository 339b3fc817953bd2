#include "provider_policy.hpp"

#include "duration.hpp"

namespace stampede {
namespace {
constexpr std::uint64_t kProviderStream = 0xFFFF'FFFF'FFFF'FFFFULL;
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

Limiter& ProviderPolicy::tenant_limiter(std::string_view tenant) {
  // Most runs have one tenant: skip the hash when it is the same as last time.
  if (last_limiter_ && tenant == last_tenant_) return *last_limiter_;
  auto it = tenants_.find(std::string(tenant));
  if (it == tenants_.end()) {
    it = tenants_
             .emplace(std::string(tenant),
                      make_limiter(config_.limiter, *config_.allowance, config_.burst))
             .first;
  }
  last_tenant_ = std::string(tenant);
  last_limiter_ = it->second.get();
  return *last_limiter_;
}

QuotaVerdicts ProviderPolicy::local_quota(std::int64_t now_ns, std::string_view tenant) {
  QuotaVerdicts q;
  q.t_ns = now_ns;
  if (capacity_) {
    q.capacity = capacity_->try_acquire(now_ns);
    if (!q.capacity->admitted) return q;
  }
  if (config_.allowance) q.allowance = tenant_limiter(tenant).try_acquire(now_ns);
  return q;
}

Decision ProviderPolicy::admit(std::int64_t now_ns, std::string_view tenant) {
  if (auto d = outage(now_ns)) return *d;
  if (config_.error_rate > 0 && rng_.unit() < config_.error_rate) {
    Decision d;
    d.status = 400;
    d.reason = DecisionReason::kInjectedError;
    return d;
  }
  const QuotaVerdicts q = shared_ ? shared_->decide(now_ns, tenant) : local_quota(now_ns, tenant);
  if (q.unavailable) {
    Decision d;
    d.status = 503;
    d.reason = DecisionReason::kStoreUnavailable;
    if (config_.retry_after) d.retry_after_ns = kNsPerSec;
    return d;
  }
  if (q.capacity && !q.capacity->admitted) {
    auto r = quota_rejection(*q.capacity, 529, DecisionReason::kCapacity);
    r.quota_t_ns = q.t_ns;
    return r;
  }
  Decision d;
  d.quota_t_ns = q.t_ns;
  if (q.allowance) {
    const LimitVerdict& v = *q.allowance;
    if (!v.admitted) {
      auto r = quota_rejection(v, 429, DecisionReason::kAllowance);
      r.window_ns = config_.allowance->window_ns;
      r.quota_t_ns = d.quota_t_ns;
      return r;
    }
    d.has_quota = true;
    d.limit = v.limit;
    d.remaining = v.remaining;
    d.reset_ns = v.reset_ns;
    d.window_ns = config_.allowance->window_ns;
  }
  d.service_ns = config_.latency_min_ns;
  if (config_.latency_max_ns > config_.latency_min_ns) {
    d.service_ns = rng_.uniform(config_.latency_min_ns, config_.latency_max_ns);
  }
  return d;
}

}  // namespace stampede
