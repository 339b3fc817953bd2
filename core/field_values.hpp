#pragma once

#include <cstdint>
#include <string>

#include "enum_table.hpp"
#include "hop_delay.hpp"
#include "parsed.hpp"
#include "scenario.hpp"

namespace stampede {

// The values a scenario field takes, each parsed from the text a flag gives and formatted as
// to_json prints it back: the field table (scenario_fields.cpp) is made of these.

inline constexpr EnumTable<LimiterKind, 4> kLimiters{
    {{LimiterKind::kFixedWindow, "fixed-window"},
     {LimiterKind::kSlidingWindow, "sliding-window"},
     {LimiterKind::kTokenBucket, "token-bucket"},
     {LimiterKind::kPerSecond, "per-second"}}};
inline constexpr EnumTable<WorkloadKind, 4> kWorkloads{{{WorkloadKind::kStorm, "storm"},
                                                        {WorkloadKind::kSteady, "steady"},
                                                        {WorkloadKind::kQueue, "queue"},
                                                        {WorkloadKind::kTrace, "trace"}}};
inline constexpr EnumTable<TraceSpread, 2> kTraceSpreads{
    {{TraceSpread::kUniform, "uniform"}, {TraceSpread::kNone, "none"}}};
inline constexpr EnumTable<StrategyKind, 10> kStrategies{
    {{StrategyKind::kNone, "none"},
     {StrategyKind::kFixed, "fixed"},
     {StrategyKind::kExponential, "exponential"},
     {StrategyKind::kFullJitter, "full-jitter"},
     {StrategyKind::kEqualJitter, "equal-jitter"},
     {StrategyKind::kDecorrelatedJitter, "decorrelated-jitter"},
     {StrategyKind::kProportionalJitter, "proportional-jitter"},
     {StrategyKind::kGrpcGoJitter, "grpc-go-jitter"},
     {StrategyKind::kAdditiveJitter, "additive-jitter"},
     {StrategyKind::kDecorrelatedJitterV2, "decorrelated-jitter-v2"}}};
inline constexpr EnumTable<RetryAfterMode, 3> kRetryAfterModes{
    {{RetryAfterMode::kIgnore, "ignore"},
     {RetryAfterMode::kExact, "exact"},
     {RetryAfterMode::kJittered, "jittered"}}};
inline constexpr EnumTable<RateLimitHeaders, 5> kHeaderDialects{
    {{RateLimitHeaders::kNone, "none"},
     {RateLimitHeaders::kIetf, "ietf"},
     {RateLimitHeaders::kXRateLimit, "x-ratelimit"},
     {RateLimitHeaders::kAnthropic, "anthropic"},
     {RateLimitHeaders::kOpenAi, "openai"}}};
inline constexpr EnumTable<Dialect, 4> kDialects{{{Dialect::kGeneric, "generic"},
                                                  {Dialect::kOpenAi, "openai"},
                                                  {Dialect::kAnthropic, "anthropic"},
                                                  {Dialect::kAws, "aws"}}};
inline constexpr EnumTable<OutageAction, 4> kOutageActions{{{OutageAction::kStatus503, "503"},
                                                            {OutageAction::kStatus529, "529"},
                                                            {OutageAction::kStatus500, "500"},
                                                            {OutageAction::kReset, "reset"}}};
inline constexpr EnumTable<ProviderMode, 2> kModes{
    {{ProviderMode::kPlain, "plain"}, {ProviderMode::kOcc, "occ"}}};

Parsed<std::int64_t> parse_count(const std::string& text);
Parsed<double> parse_fraction(const std::string& text);
Parsed<double> parse_positive_real(const std::string& text);
Parsed<std::int64_t> parse_positive_duration(const std::string& text);
Parsed<std::string> parse_header_name(const std::string& text);
Parsed<bool> parse_on_off(const std::string& text);
const char* format_on_off(bool on);

struct Latency {
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
};
Parsed<Latency> parse_latency(const std::string& text);
std::string format_latency(std::int64_t min_ns, std::int64_t max_ns);

// An LLM answer's length: "200", or a range "50-400" drawn from per request.
Parsed<TokenRange> parse_token_range(const std::string& text);
std::string format_token_range(const TokenRange& r);

Parsed<RetryBudgetConfig> parse_retry_budget(const std::string& text);
std::string format_retry_budget(const RetryBudgetConfig& b);
Parsed<BreakerConfig> parse_breaker(const std::string& text);
std::string format_breaker(const BreakerConfig& b);
Parsed<HopDelay> parse_hop_delay(const std::string& text);
std::string format_hop_delay(const HopDelay& h);
Parsed<RetryQuotaConfig> parse_retry_quota(const std::string& text);
std::string format_retry_quota(const RetryQuotaConfig& q);
Parsed<AdaptiveThrottleConfig> parse_adaptive_throttle(const std::string& text);
std::string format_adaptive_throttle(const AdaptiveThrottleConfig& t);
Parsed<RetryRatioConfig> parse_retry_ratio(const std::string& text);
std::string format_retry_ratio(const RetryRatioConfig& r);

}  // namespace stampede
