#include "field_value_help.hpp"

#include <array>
#include <utility>

namespace stampede {
namespace {

constexpr std::array<std::pair<std::string_view, FieldValueHelp>, 47> kFieldValues{{
    {"provider.allowance", {"RATE", ""}},
    {"provider.limiter", {"LIMITER", "fixed-window"}},
    {"provider.burst", {"INT", ""}},
    {"provider.capacity", {"RATE", ""}},
    {"provider.outages", {"START-END[:STATUS]", ""}},
    {"provider.error_rate", {"FRACTION", "0"}},
    {"provider.latency", {"DURATION[-DURATION]", "0s"}},
    {"provider.tenant_header", {"HEADER", "X-Api-Key"}},
    {"provider.retry_after", {"on|off", "on"}},
    {"provider.ratelimit_headers", {"HEADERS", ""}},
    {"provider.dialect", {"DIALECT", "generic"}},
    {"provider.retry_after_ms", {"on|off", "off"}},
    {"provider.retry_after_jitter", {"FRACTION", "0"}},
    {"provider.seed", {"INT", "1"}},
    {"provider.token_allowance", {"RATE", ""}},
    {"provider.spend_cap", {"INT", ""}},
    {"provider.token_header", {"HEADER", "X-Tokens"}},
    {"provider.token_field", {"NAME", ""}},
    {"provider.default_tokens", {"INT", "1"}},
    {"provider.mode", {"MODE", "plain"}},
    {"provider.hop_delay", {"MEAN,SD", ""}},
    {"fleet.clients", {"INT", "100"}},
    {"fleet.workload", {"WORKLOAD", "storm"}},
    {"fleet.items", {"INT", ""}},
    {"fleet.rate", {"RATE", ""}},
    {"fleet.duration", {"DURATION", ""}},
    {"fleet.stages", {"DURATION:RATE,...", ""}},
    {"fleet.policy", {"POLICY", ""}},
    {"fleet.strategy", {"STRATEGY", "full-jitter"}},
    {"fleet.base", {"DURATION", "1s"}},
    {"fleet.cap", {"DURATION", "60s"}},
    {"fleet.max_attempts", {"INT", "0"}},
    {"fleet.deadline", {"DURATION", ""}},
    {"fleet.retry_after", {"MODE", "ignore"}},
    {"fleet.retry_budget", {"MAX_TOKENS,RATIO", ""}},
    {"fleet.breaker", {"FAILURES,COOLDOWN", ""}},
    {"fleet.multiplier", {"NUMBER", "2"}},
    {"fleet.randomization", {"FRACTION", "0"}},
    {"fleet.jitter", {"DURATION", "0s"}},
    {"fleet.retry_quota", {"CAPACITY,RETRY_COST,TIMEOUT_COST,REFUND", ""}},
    {"fleet.adaptive_rate", {"on|off", "off"}},
    {"fleet.adaptive_throttle", {"K,WINDOW", ""}},
    {"fleet.retry_ratio", {"RATIO,WINDOW", ""}},
    {"fleet.timeout", {"DURATION", "30s"}},
    {"fleet.seed", {"INT", "1"}},
    {"fleet.tokens", {"INT", ""}},
    {"fleet.hop_delay", {"MEAN,SD", "10ms,2ms"}},
}};

}  // namespace

std::optional<FieldValueHelp> field_value_help(std::string_view field) {
  for (const auto& [name, help] : kFieldValues) {
    if (name == field) return help;
  }
  return std::nullopt;
}

}  // namespace stampede
