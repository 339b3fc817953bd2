#include "policy_presets.hpp"

#include <array>
#include <functional>

#include "duration.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kDay = 86'400 * kNsPerSec;

struct Preset {
  std::string_view name;
  std::function<void(FleetConfig&)> set;  // on a fleet whose policy fields are the defaults
};

void aws_standard(FleetConfig& f) {
  f.strategy = StrategyKind::kFullJitter;
  f.base_ns = kNsPerSec;
  f.cap_ns = 20 * kNsPerSec;
  f.max_attempts = 2;
  f.retry_quota = RetryQuotaConfig{};
}

const std::array<Preset, 8>& presets() {
  static const std::array<Preset, 8> table{{
      {"aws-standard", aws_standard},
      {"aws-adaptive",
       [](FleetConfig& f) {
         aws_standard(f);
         f.adaptive_rate = true;
       }},
      {"grpc",
       [](FleetConfig& f) {
         f.strategy = StrategyKind::kFullJitter;
         f.base_ns = 100 * kNsPerMs;
         f.cap_ns = kNsPerSec;
         f.max_attempts = 3;
         f.retry_budget = RetryBudgetConfig{10, 0.1};
       }},
      {"grpc-go",
       [](FleetConfig& f) {
         f.strategy = StrategyKind::kGrpcGoJitter;
         f.base_ns = kNsPerSec;
         f.cap_ns = 120 * kNsPerSec;
         f.multiplier = 1.6;
         f.randomization = 0.2;
       }},
      {"polly",
       [](FleetConfig& f) {
         f.strategy = StrategyKind::kFixed;
         f.base_ns = 2 * kNsPerSec;
         f.cap_ns = kDay;
         f.max_attempts = 3;
       }},
      {"tenacity-exponential-jitter",
       [](FleetConfig& f) {
         f.strategy = StrategyKind::kAdditiveJitter;
         f.base_ns = kNsPerSec;
         f.cap_ns = kDay;
         f.jitter_ns = kNsPerSec;
       }},
      {"resilience4j",
       [](FleetConfig& f) {
         f.strategy = StrategyKind::kProportionalJitter;
         f.base_ns = 500 * kNsPerMs;
         f.cap_ns = kDay;
         f.multiplier = 1.5;
         f.randomization = 0.5;
         f.max_attempts = 2;
       }},
      {"sre",
       [](FleetConfig& f) {
         f.strategy = StrategyKind::kFullJitter;
         f.max_attempts = 2;
         f.retry_ratio = RetryRatioConfig{};
         f.adaptive_throttle = AdaptiveThrottleConfig{};
       }},
  }};
  return table;
}

// Every retry-policy field back to its default, the workload kept.
void reset_policy(FleetConfig& f) {
  const FleetConfig d;
  f.strategy = d.strategy;
  f.base_ns = d.base_ns;
  f.cap_ns = d.cap_ns;
  f.max_attempts = d.max_attempts;
  f.retry_after = d.retry_after;
  f.retry_budget = d.retry_budget;
  f.breaker = d.breaker;
  f.multiplier = d.multiplier;
  f.randomization = d.randomization;
  f.jitter_ns = d.jitter_ns;
  f.retry_quota = d.retry_quota;
  f.adaptive_rate = d.adaptive_rate;
  f.adaptive_throttle = d.adaptive_throttle;
  f.retry_ratio = d.retry_ratio;
}

}  // namespace

std::optional<std::string> apply_policy_preset(FleetConfig& fleet, std::string_view name) {
  for (const auto& p : presets()) {
    if (p.name != name) continue;
    reset_policy(fleet);
    p.set(fleet);
    fleet.policy = std::string(name);
    return std::nullopt;
  }
  std::string known;
  for (const auto& n : policy_preset_names()) known += (known.empty() ? "" : ", ") + n;
  return "'" + std::string(name) + "' is not a policy preset; expected one of " + known;
}

std::vector<std::string> policy_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : presets()) names.emplace_back(p.name);
  return names;
}

}  // namespace stampede
