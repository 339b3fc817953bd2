#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "limiter.hpp"
#include "outcome.hpp"
#include "rng.hpp"
#include "scenario.hpp"
#include "shared_quota.hpp"

namespace stampede {

// Which layer answered, for the error body and the stats.
enum class DecisionReason {
  kServed,
  kOutage,
  kInjectedError,
  kCapacity,
  kAllowance,
  kStoreUnavailable
};

struct Decision {
  int status = 200;
  bool reset_connection = false;  // an outage that drops the connection instead of answering
  DecisionReason reason = DecisionReason::kServed;
  std::int64_t retry_after_ns = -1;  // -1: send no Retry-After
  bool has_quota = false;            // the RateLimit headers below apply
  std::int64_t limit = 0;
  std::int64_t remaining = 0;
  std::int64_t reset_ns = 0;
  std::int64_t window_ns = 0;
  std::int64_t service_ns = 0;  // how long to take before answering
  // When the quota layers decided: the arrival's time, or a shared store's later one; -1 when
  // they were not asked.
  std::int64_t quota_t_ns = -1;

  Outcome outcome() const {
    return reset_connection ? Outcome::kConnectError : classify_status(status);
  }
};

// Retry-After in delta-seconds: rounded up, at least 1.
std::int64_t retry_after_seconds(std::int64_t retry_after_ns);

// The provider model: layers, first match wins — outage window, injected error, global
// capacity, per-tenant allowance, then success after the service time. Pure: time comes in,
// nothing is read from a clock, and the caller serialises calls.
class ProviderPolicy {
 public:
  // shared: where capacity and the allowances live when not in this process (not owned).
  explicit ProviderPolicy(const ProviderConfig& config, SharedQuota* shared = nullptr);

  Decision admit(std::int64_t now_ns, std::string_view tenant);
  // Starts an outage now (the admin API's POST /admin/outage).
  void add_outage(const OutageWindow& window);
  const ProviderConfig& config() const { return config_; }

 private:
  std::optional<Decision> outage(std::int64_t now_ns) const;
  Decision quota_rejection(const LimitVerdict& v, int status, DecisionReason reason) const;
  Limiter& tenant_limiter(std::string_view tenant);
  QuotaVerdicts local_quota(std::int64_t now_ns, std::string_view tenant);

  ProviderConfig config_;
  SharedQuota* shared_;
  Rng rng_;
  std::unique_ptr<Limiter> capacity_;
  std::unordered_map<std::string, std::unique_ptr<Limiter>> tenants_;
  std::string last_tenant_;
  Limiter* last_limiter_ = nullptr;
};

}  // namespace stampede
