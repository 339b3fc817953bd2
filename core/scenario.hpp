#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "hop_delay.hpp"
#include "parsed.hpp"
#include "rate.hpp"
#include "stages.hpp"
#include "trace_settings.hpp"

namespace stampede {

// One scenario file describes the provider, the fleet and the expectations; the same file
// feeds fakeprovider, `loadgen run` and `loadgen simulate`. Every field is spelled in the
// file exactly as its flag takes it, so a flag overrides a field with the same parser.

// kPerSecond, the default, is no fourth algorithm: it names how an allowance is enforced when
// the scenario names none (enforced_kind, fakeprovider/model/limiter.hpp).
enum class LimiterKind { kFixedWindow, kSlidingWindow, kTokenBucket, kPerSecond };
enum class OutageAction { kStatus503, kStatus529, kStatus500, kReset };
enum class RateLimitHeaders { kNone, kIetf, kXRateLimit, kAnthropic, kOpenAi };
// How fakeprovider speaks on the wire: which API's statuses, headers and bodies a real SDK
// pointed at it reads (docs/ADMIN_API.md#dialects). The model's decisions are the same in each.
enum class Dialect { kGeneric, kOpenAi, kAnthropic, kAws };
enum class WorkloadKind { kStorm, kSteady, kQueue, kTrace };
enum class StrategyKind {
  kNone,
  kFixed,
  kExponential,
  kFullJitter,
  kEqualJitter,
  kDecorrelatedJitter,
  // The client libraries' own formulas (docs/POLICIES.md).
  kProportionalJitter,    // resilience4j: exponential x uniform(1 - r, 1 + r)
  kGrpcGoJitter,          // grpc-go: the same, but the first retry waits the base exactly
  kAdditiveJitter,        // tenacity: min(cap, base * mult^(n-1) + uniform(0, jitter))
  kDecorrelatedJitterV2,  // Polly v8: 2^t * tanh(sqrt(4t)) increments, t = n - 1 + uniform
};
enum class RetryAfterMode { kIgnore, kExact, kJittered };
// plain: every request is one call the layers decide. occ: the provider also holds one
// versioned row (GET /row, PUT /row with If-Match) and each item is a read, then a
// conditional write, retried after a 412.
enum class ProviderMode { kPlain, kOcc };

struct OutageWindow {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  OutageAction action = OutageAction::kStatus503;
  bool operator==(const OutageWindow&) const = default;
};

// fakeprovider, LLM dialects: how a streamed answer is paced and broken (docs/LLM.md).
struct TokenRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
  bool operator==(const TokenRange&) const = default;
};
inline constexpr std::int64_t kMaxOutputTokens = 1'000'000;
// A streamed fleet's max_tokens when none is given (fleet.max_tokens, --max-tokens).
inline constexpr std::int64_t kDefaultMaxTokens = 100;
struct StreamConfig {
  std::int64_t first_token_ns = 0;  // scenario time from the answer's start to its first token
  std::optional<Rate> token_rate;   // none: the tokens all at once, with the first
  // The answer's length is the request's max_tokens bounded by a draw in this range; none: the
  // request's max_tokens.
  std::optional<TokenRange> output_tokens;
  double errors = 0;  // the share of streams broken after a drawn number of tokens
  bool operator==(const StreamConfig&) const = default;
};

// provider.models: one model's own limits, under the provider's own field names
// (docs/LLM.md#per-model); a limit not given is unlimited for that model.
struct ModelLimits {
  std::string name;  // the LLM request body's "model"
  std::optional<Rate> allowance;
  std::optional<Rate> token_allowance;
  std::optional<Rate> input_token_allowance;
  std::optional<Rate> output_token_allowance;
  std::optional<std::int64_t> max_concurrent;
  bool operator==(const ModelLimits&) const = default;
};
// A model name longer is the dialect's 400; a scenario lists at most so many models.
inline constexpr std::size_t kMaxModelName = 256;
inline constexpr std::size_t kMaxModels = 64;

struct ProviderConfig {
  std::optional<Rate> allowance;  // per tenant; none = unlimited
  LimiterKind limiter = LimiterKind::kPerSecond;
  std::optional<std::int64_t> burst;  // token bucket size; default one second of allowance
  std::optional<Rate> capacity;       // global, across tenants; answered with 529
  std::vector<OutageWindow> outages;
  double error_rate = 0;  // fraction answered 400
  std::int64_t latency_min_ns = 0;
  std::int64_t latency_max_ns = 0;
  std::string tenant_header = "X-Api-Key";
  bool retry_after = true;
  Dialect dialect = Dialect::kGeneric;
  // None: the dialect's own (ratelimit_headers_of); given, it wins over the dialect's.
  std::optional<RateLimitHeaders> ratelimit_headers;
  bool retry_after_ms = false;    // fakeprovider: also send retry-after-ms with Retry-After
  double retry_after_jitter = 0;  // fakeprovider: each hint times 1 + uniform[0, this)
  std::uint64_t seed = 1;
  ProviderMode mode = ProviderMode::kPlain;
  // LLM quotas (docs/POLICIES.md): a request declares the tokens it uses in token_header; one
  // that declares none counts default_tokens.
  std::optional<Rate> token_allowance;    // per tenant, in tokens; none = unlimited
  std::optional<std::int64_t> spend_cap;  // tokens per tenant for the whole run; never refills
  std::string token_header = "X-Tokens";
  std::string token_field;  // a top-level JSON body field read when the header is absent
  std::int64_t default_tokens = 1;
  // LLM limits (docs/LLM.md), per tenant, read from the LLM dialects' request bodies: input
  // tokens charged at admission, output tokens reserved at max_tokens and settled when the
  // answer ends, and the answers a tenant may have open at once.
  std::optional<Rate> input_token_allowance;
  std::optional<Rate> output_token_allowance;
  std::optional<std::int64_t> max_concurrent;
  // Per model: each listed model's requests are held to its own limits instead of the five
  // above; an unlisted one to those, or, with models_only, answered 404 not_found_error.
  std::vector<ModelLimits> models;
  bool models_only = false;
  // fakeprovider only: hold each request one hop before deciding it and one more before
  // answering, the simulator's network (fleet.hop_delay) on a real one. None: answer at once.
  std::optional<HopDelay> hop_delay;
  // fakeprovider only: forward what is admitted to this URL (parse_upstream_url), and pass its
  // answers back; empty: answer here.
  std::string upstream;
  StreamConfig stream;
};

struct RetryBudgetConfig {
  double max_tokens = 0;
  double token_ratio = 0;
  bool operator==(const RetryBudgetConfig&) const = default;
};

struct BreakerConfig {
  std::int64_t failures = 0;
  std::int64_t cooldown_ns = 0;
  bool operator==(const BreakerConfig&) const = default;
};

// The client-library guards of the policy presets (docs/POLICIES.md): the AWS SDKs' retry
// quota, the SRE book's adaptive throttling and its per-client retry ratio.
struct RetryQuotaConfig {
  double capacity = 500;      // the bucket starts full
  double retry_cost = 5;      // taken per retry
  double timeout_cost = 10;   // taken per retry after a timeout
  double success_refund = 1;  // given back by a success that needed no retry
  bool operator==(const RetryQuotaConfig&) const = default;
};

struct AdaptiveThrottleConfig {
  double k = 2;  // accepts are multiplied by K before they offset requests
  std::int64_t window_ns = 120'000'000'000;
  bool operator==(const AdaptiveThrottleConfig&) const = default;
};

struct RetryRatioConfig {
  double ratio = 0.1;  // retries may be at most this fraction of the requests in the window
  std::int64_t window_ns = 120'000'000'000;
  bool operator==(const RetryRatioConfig&) const = default;
};

// Items a workload may create: a run is bounded in count, whatever its rate and duration.
inline constexpr std::int64_t kMaxItems = 10'000'000'000;

struct FleetConfig {
  std::int64_t clients = 100;
  WorkloadKind workload = WorkloadKind::kStorm;
  std::optional<std::int64_t> items;  // default: one per client (storm, queue) or rate x duration
  std::optional<Rate> rate;           // steady workload's open-loop arrival rate
  std::optional<std::int64_t> duration_ns;
  Stages stages;  // a ramping arrival rate instead of the rate: the steady workload's too
  StrategyKind strategy = StrategyKind::kFullJitter;
  std::int64_t base_ns = 1'000'000'000;
  std::int64_t cap_ns = 60'000'000'000;
  std::int64_t max_attempts = 0;  // retries after the first send; 0 = unbounded
  std::optional<std::int64_t> deadline_ns;
  RetryAfterMode retry_after = RetryAfterMode::kIgnore;
  std::optional<RetryBudgetConfig> retry_budget;
  std::optional<BreakerConfig> breaker;
  // What the presets add: the backoff's shape, then the guards (docs/POLICIES.md).
  std::string policy;          // the preset the policy started from; empty = none
  double multiplier = 2;       // the exponential strategies' growth per retry
  double randomization = 0;    // proportional jitter's factor r: uniform(1 - r, 1 + r)
  std::int64_t jitter_ns = 0;  // additive jitter's upper bound
  std::optional<RetryQuotaConfig> retry_quota;
  bool adaptive_rate = false;  // the AWS SDKs' CUBIC client-side rate limiter
  std::optional<AdaptiveThrottleConfig> adaptive_throttle;
  std::optional<RetryRatioConfig> retry_ratio;
  std::int64_t timeout_ns = 30'000'000'000;
  std::uint64_t seed = 1;
  std::optional<std::int64_t> tokens;  // declared by every request in provider.token_header
  // loadgen run and simulate --stream (docs/LLM.md): every request a streamed LLM request in
  // the provider's dialect, its answer bounded by max_tokens.
  bool stream = false;
  std::int64_t max_tokens = kDefaultMaxTokens;
  HopDelay hop_delay;   // occ mode, simulate only: live, fakeprovider --hop-delay emulates it
  TraceSettings trace;  // the trace workload's

  // Items the workload will create in all.
  std::int64_t item_count() const;
  // steady (a rate or stages) and trace: arrivals on their schedule, each taken by a free
  // client or dropped (docs/SCENARIO.md#the-open-model).
  bool open_model() const {
    return workload == WorkloadKind::kSteady || workload == WorkloadKind::kTrace;
  }
};

struct Scenario {
  std::string name = "unnamed";
  std::string description;
  ProviderConfig provider;
  FleetConfig fleet;
  std::vector<std::string> expectations;  // assertion expressions, e.g. "peak_ratio <= 2"
  // The fields a file or a flag gave ("provider.allowance"): what loadgen holds a provider's
  // own settings to, and what it leaves to them (provider_agreement.hpp).
  std::set<std::string> given;
};

// Sets one field from a file value or a flag ("fleet.strategy", "provider.outages", ...), by
// its entry in the field table (scenario_fields.hpp). Returns the error, naming the field, the
// bad value and what is accepted.
std::optional<std::string> set_field(Scenario& s, std::string_view field,
                                     const nlohmann::json& value);

// Every field name set_field accepts, for help texts and error messages.
std::vector<std::string> field_names();

Parsed<Scenario> scenario_from_json(const nlohmann::json& j);
Parsed<Scenario> load_scenario_file(const std::string& path);
// Every field the table prints, in its section: what a results document holds of its scenario.
nlohmann::json to_json(const Scenario& s);

// A scenario file (or the defaults when the path is empty), then flag overrides in order,
// then validate(): the one way every binary builds its scenario. The error is every problem,
// on one line, separated by "; ".
struct FieldOverride {
  std::string field;
  nlohmann::json value;
};
Parsed<Scenario> build_scenario(const std::string& path,
                                const std::vector<FieldOverride>& overrides);

// Each field's own check from the table, then the rules across fields (cap below base,
// steady without a rate, ...): every error, not the first.
std::vector<std::string> validate(const Scenario& s);

// The end of the last outage window, or 0 when there is none.
std::int64_t recovery_ns(const ProviderConfig& p);

std::string_view to_string(LimiterKind k);
std::string_view to_string(WorkloadKind k);
std::string_view to_string(StrategyKind k);
std::string_view to_string(RetryAfterMode k);
std::string_view to_string(RateLimitHeaders k);
std::string_view to_string(Dialect k);
// The rate-limit headers a provider sends: --ratelimit-headers when given, else its dialect's
// (generic: ietf, openai: openai, anthropic: anthropic, aws: none).
RateLimitHeaders ratelimit_headers_of(const ProviderConfig& p);
std::string_view to_string(ProviderMode k);
// "0s-30s:503", its times as duration spells them: format_duration (exact, the default) or,
// for a person, format_duration_rounded.
std::string format_outage(const OutageWindow& w,
                          std::string (*duration)(std::int64_t) = format_duration);

Parsed<StrategyKind> parse_strategy(std::string_view text);
Parsed<OutageWindow> parse_outage(std::string_view text);

}  // namespace stampede
