// The field table: how each scenario field is parsed from a file value or a flag.
#include <array>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "enum_table.hpp"
#include "http_token.hpp"
#include "nearest_name.hpp"
#include "policy_presets.hpp"
#include "scenario.hpp"

namespace stampede {
namespace {

using json = nlohmann::json;
using Error = std::optional<std::string>;

constexpr EnumTable<LimiterKind, 3> kLimiters{{{LimiterKind::kFixedWindow, "fixed-window"},
                                               {LimiterKind::kSlidingWindow, "sliding-window"},
                                               {LimiterKind::kTokenBucket, "token-bucket"}}};
constexpr EnumTable<WorkloadKind, 3> kWorkloads{{{WorkloadKind::kStorm, "storm"},
                                                 {WorkloadKind::kSteady, "steady"},
                                                 {WorkloadKind::kQueue, "queue"}}};
constexpr EnumTable<StrategyKind, 10> kStrategies{
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
constexpr EnumTable<RetryAfterMode, 3> kRetryAfterModes{{{RetryAfterMode::kIgnore, "ignore"},
                                                         {RetryAfterMode::kExact, "exact"},
                                                         {RetryAfterMode::kJittered, "jittered"}}};
constexpr EnumTable<RateLimitHeaders, 5> kHeaderDialects{
    {{RateLimitHeaders::kNone, "none"},
     {RateLimitHeaders::kIetf, "ietf"},
     {RateLimitHeaders::kXRateLimit, "x-ratelimit"},
     {RateLimitHeaders::kAnthropic, "anthropic"},
     {RateLimitHeaders::kOpenAi, "openai"}}};
constexpr EnumTable<Dialect, 4> kDialects{{{Dialect::kGeneric, "generic"},
                                           {Dialect::kOpenAi, "openai"},
                                           {Dialect::kAnthropic, "anthropic"},
                                           {Dialect::kAws, "aws"}}};
constexpr EnumTable<OutageAction, 4> kOutageActions{{{OutageAction::kStatus503, "503"},
                                                     {OutageAction::kStatus529, "529"},
                                                     {OutageAction::kStatus500, "500"},
                                                     {OutageAction::kReset, "reset"}}};

constexpr EnumTable<ProviderMode, 2> kModes{
    {{ProviderMode::kPlain, "plain"}, {ProviderMode::kOcc, "occ"}}};

// A file may spell a number as a number or a string; a flag always gives a string.
std::string as_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

template <class T>
Error assign(Parsed<T> parsed, T& out) {
  if (!parsed) return parsed.error();
  out = *parsed;
  return std::nullopt;
}

template <class T>
Error assign(Parsed<T> parsed, std::optional<T>& out) {
  if (!parsed) return parsed.error();
  out = *parsed;
  return std::nullopt;
}

Parsed<std::int64_t> parse_count(const std::string& text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < 0) {
    return Parsed<std::int64_t>::fail("'" + text + "' is not a whole number >= 0");
  }
  return Parsed<std::int64_t>::ok(v);
}

Parsed<double> parse_fraction(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v >= 0.0 && v <= 1.0)) {
    return Parsed<double>::fail("'" + text + "' is not a fraction between 0 and 1");
  }
  return Parsed<double>::ok(v);
}

Parsed<double> parse_positive_real(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v > 0.0 && v < 1e12)) {
    return Parsed<double>::fail("'" + text + "' is not a positive number");
  }
  return Parsed<double>::ok(v);
}

// The client sends it and the provider looks it up: a name no HTTP message can carry would
// match nothing, silently.
Parsed<std::string> parse_header_name(const std::string& text) {
  if (is_http_token(text)) return Parsed<std::string>::ok(text);
  return Parsed<std::string>::fail("'" + text +
                                   "' is not a header name; expected letters, digits and "
                                   "!#$%&'*+-.^_`|~, e.g. X-Api-Key");
}

Parsed<bool> parse_on_off(const std::string& text) {
  if (text == "on" || text == "true") return Parsed<bool>::ok(true);
  if (text == "off" || text == "false") return Parsed<bool>::ok(false);
  return Parsed<bool>::fail("'" + text + "' is not on or off");
}

// "10,0.1": max tokens, then the fraction of a token each success refunds.
Parsed<RetryBudgetConfig> parse_retry_budget(const std::string& text) {
  const auto comma = text.find(',');
  const auto bad = [&] {
    return Parsed<RetryBudgetConfig>::fail("'" + text +
                                           "' is not a retry budget; expected MAX_TOKENS,RATIO "
                                           "(e.g. 10,0.1)");
  };
  if (comma == std::string::npos) return bad();
  const auto max = parse_positive_real(text.substr(0, comma));
  const auto ratio = parse_fraction(text.substr(comma + 1));
  if (!max || !ratio) return bad();
  return Parsed<RetryBudgetConfig>::ok({*max, *ratio});
}

// "5,30s": consecutive failures that open it, then how long it stays open.
Parsed<BreakerConfig> parse_breaker(const std::string& text) {
  const auto comma = text.find(',');
  const auto bad = [&] {
    return Parsed<BreakerConfig>::fail(
        "'" + text + "' is not a breaker; expected FAILURES,COOLDOWN (e.g. 5,30s)");
  };
  if (comma == std::string::npos) return bad();
  const auto failures = parse_count(text.substr(0, comma));
  const auto cooldown = parse_duration_ns(text.substr(comma + 1));
  if (!failures || !cooldown || *failures == 0 || *cooldown <= 0) return bad();
  return Parsed<BreakerConfig>::ok({*failures, *cooldown});
}

// "10ms,2ms": the mean of a hop, then its standard deviation.
Parsed<HopDelay> parse_hop_delay(const std::string& text) {
  const auto comma = text.find(',');
  const auto bad = [&] {
    return Parsed<HopDelay>::fail("'" + text +
                                  "' is not a hop delay; expected MEAN,SD (e.g. 10ms,2ms)");
  };
  if (comma == std::string::npos) return bad();
  const auto mean = parse_duration_ns(text.substr(0, comma));
  const auto sd = parse_duration_ns(text.substr(comma + 1));
  if (!mean || !sd || *mean < 0 || *sd < 0) return bad();
  return Parsed<HopDelay>::ok({*mean, *sd});
}

// Comma-separated parts, e.g. "500,5,10,1".
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t comma; (comma = text.find(',', from)) != std::string::npos; from = comma + 1)
    parts.push_back(text.substr(from, comma - from));
  parts.push_back(text.substr(from));
  return parts;
}

// "500,5,10,1": capacity, cost per retry, cost per retry after a timeout, refund per success.
Parsed<RetryQuotaConfig> parse_retry_quota(const std::string& text) {
  const auto parts = split_commas(text);
  const auto bad = [&] {
    return Parsed<RetryQuotaConfig>::fail(
        "'" + text +
        "' is not a retry quota; expected CAPACITY,RETRY_COST,TIMEOUT_COST,REFUND "
        "(e.g. 500,5,10,1)");
  };
  if (parts.size() != 4) return bad();
  std::array<double, 4> v{};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto x = parse_positive_real(parts[i]);
    if (!x) return bad();
    v[i] = *x;
  }
  return Parsed<RetryQuotaConfig>::ok({v[0], v[1], v[2], v[3]});
}

// "2,2m": a number (K, or a ratio), then the trailing window it is counted over.
template <class Config>
Parsed<Config> parse_windowed(const std::string& text, bool fraction, const char* what) {
  const auto parts = split_commas(text);
  const auto bad = [&] { return Parsed<Config>::fail("'" + text + "' is not " + what); };
  if (parts.size() != 2) return bad();
  const auto x = fraction ? parse_fraction(parts[0]) : parse_positive_real(parts[0]);
  const auto window = parse_duration_ns(parts[1]);
  if (!x || !window || *window <= 0) return bad();
  return Parsed<Config>::ok({*x, *window});
}

// "5ms" (fixed) or "5ms-20ms" (uniform in the range).
Error set_latency(ProviderConfig& p, const std::string& text) {
  // From the second character: a leading '-' is a negative start, not an empty one.
  const auto dash = text.find('-', 1);
  const auto lo = parse_duration_ns(text.substr(0, dash));
  // A part of the range is quoted alone: name the whole value too ("-5ms" is "" and "5ms").
  if (!lo) return "'" + text + "': " + lo.error();
  auto hi = lo;
  if (dash != std::string::npos) hi = parse_duration_ns(text.substr(dash + 1));
  if (!hi) return "'" + text + "': " + hi.error();
  if (*hi < *lo) return "'" + text + "': the range's end is below its start";
  p.latency_min_ns = *lo;
  p.latency_max_ns = *hi;
  return std::nullopt;
}

Error set_outages(ProviderConfig& p, const json& v) {
  std::vector<OutageWindow> windows;
  const json list = v.is_array() ? v : json::array({v});
  for (const auto& item : list) {
    const auto w = parse_outage(as_text(item));
    if (!w) return w.error();
    windows.push_back(*w);
  }
  p.outages = std::move(windows);
  return std::nullopt;
}

Error set_expectations(Scenario& s, const json& v) {
  if (!v.is_array()) return "expected a list of assertion strings, e.g. [\"peak_ratio <= 2\"]";
  std::vector<std::string> list;
  for (const auto& item : v) {
    if (!item.is_string()) return "expected a list of assertion strings, got " + item.dump();
    list.push_back(item.get<std::string>());
  }
  s.expectations = std::move(list);
  return std::nullopt;
}

Parsed<std::int64_t> parse_positive_duration(const std::string& text) {
  auto d = parse_duration_ns(text);
  if (d && *d <= 0) return Parsed<std::int64_t>::fail("'" + text + "' must be longer than zero");
  return d;
}

struct Field {
  std::string_view name;
  std::function<Error(Scenario&, const json&)> set;
};

const std::vector<Field>& fields() {
  static const std::vector<Field> table{
      {"name",
       [](Scenario& s, const json& v) {
         s.name = as_text(v);
         return Error{};
       }},
      {"description",
       [](Scenario& s, const json& v) {
         s.description = as_text(v);
         return Error{};
       }},
      {"expectations", set_expectations},
      {"provider.allowance",
       [](Scenario& s, const json& v) {
         return assign(parse_rate(as_text(v)), s.provider.allowance);
       }},
      {"provider.limiter",
       [](Scenario& s, const json& v) {
         return assign(parse_enum(kLimiters, as_text(v), "a limiter"), s.provider.limiter);
       }},
      {"provider.burst",
       [](Scenario& s, const json& v) {
         return assign(parse_count(as_text(v)), s.provider.burst);
       }},
      {"provider.capacity",
       [](Scenario& s, const json& v) {
         return assign(parse_rate(as_text(v)), s.provider.capacity);
       }},
      {"provider.outages", [](Scenario& s, const json& v) { return set_outages(s.provider, v); }},
      {"provider.error_rate",
       [](Scenario& s, const json& v) {
         return assign(parse_fraction(as_text(v)), s.provider.error_rate);
       }},
      {"provider.latency",
       [](Scenario& s, const json& v) { return set_latency(s.provider, as_text(v)); }},
      {"provider.tenant_header",
       [](Scenario& s, const json& v) {
         return assign(parse_header_name(as_text(v)), s.provider.tenant_header);
       }},
      {"provider.retry_after",
       [](Scenario& s, const json& v) {
         return assign(parse_on_off(as_text(v)), s.provider.retry_after);
       }},
      {"provider.ratelimit_headers",
       [](Scenario& s, const json& v) {
         return assign(parse_enum(kHeaderDialects, as_text(v), "a header dialect"),
                       s.provider.ratelimit_headers);
       }},
      {"provider.dialect",
       [](Scenario& s, const json& v) {
         return assign(parse_enum(kDialects, as_text(v), "a dialect"), s.provider.dialect);
       }},
      {"provider.retry_after_ms",
       [](Scenario& s, const json& v) {
         return assign(parse_on_off(as_text(v)), s.provider.retry_after_ms);
       }},
      {"provider.retry_after_jitter",
       [](Scenario& s, const json& v) {
         return assign(parse_fraction(as_text(v)), s.provider.retry_after_jitter);
       }},
      {"provider.seed",
       [](Scenario& s, const json& v) {
         std::int64_t seed = 0;
         auto e = assign(parse_count(as_text(v)), seed);
         s.provider.seed = static_cast<std::uint64_t>(seed);
         return e;
       }},
      // LLM quotas
      {"provider.token_allowance",
       [](Scenario& s, const json& v) {
         return assign(parse_rate(as_text(v)), s.provider.token_allowance);
       }},
      {"provider.spend_cap",
       [](Scenario& s, const json& v) {
         return assign(parse_count(as_text(v)), s.provider.spend_cap);
       }},
      {"provider.token_header",
       [](Scenario& s, const json& v) {
         return assign(parse_header_name(as_text(v)), s.provider.token_header);
       }},
      {"provider.token_field",
       [](Scenario& s, const json& v) {
         s.provider.token_field = as_text(v);
         return Error{};
       }},
      {"provider.default_tokens",
       [](Scenario& s, const json& v) {
         return assign(parse_count(as_text(v)), s.provider.default_tokens);
       }},
      // occ mode
      {"provider.mode",
       [](Scenario& s, const json& v) {
         return assign(parse_enum(kModes, as_text(v), "a mode"), s.provider.mode);
       }},
      {"fleet.hop_delay",
       [](Scenario& s, const json& v) {
         return assign(parse_hop_delay(as_text(v)), s.fleet.hop_delay);
       }},
      {"provider.hop_delay",
       [](Scenario& s, const json& v) {
         return assign(parse_hop_delay(as_text(v)), s.provider.hop_delay);
       }},
      {"fleet.clients",
       [](Scenario& s, const json& v) { return assign(parse_count(as_text(v)), s.fleet.clients); }},
      {"fleet.workload",
       [](Scenario& s, const json& v) {
         return assign(parse_enum(kWorkloads, as_text(v), "a workload"), s.fleet.workload);
       }},
      {"fleet.items",
       [](Scenario& s, const json& v) { return assign(parse_count(as_text(v)), s.fleet.items); }},
      {"fleet.rate",
       [](Scenario& s, const json& v) { return assign(parse_rate(as_text(v)), s.fleet.rate); }},
      {"fleet.stages",
       [](Scenario& s, const json& v) {
         // Stages are the open model's arrival rate: they imply the steady workload.
         auto e = assign(parse_stages(as_text(v)), s.fleet.stages);
         if (!e) s.fleet.workload = WorkloadKind::kSteady;
         return e;
       }},
      {"fleet.duration",
       [](Scenario& s, const json& v) {
         return assign(parse_positive_duration(as_text(v)), s.fleet.duration_ns);
       }},
      {"fleet.strategy",
       [](Scenario& s, const json& v) {
         return assign(parse_strategy(as_text(v)), s.fleet.strategy);
       }},
      {"fleet.base",
       [](Scenario& s, const json& v) {
         return assign(parse_positive_duration(as_text(v)), s.fleet.base_ns);
       }},
      {"fleet.cap",
       [](Scenario& s, const json& v) {
         return assign(parse_positive_duration(as_text(v)), s.fleet.cap_ns);
       }},
      {"fleet.max_attempts",
       [](Scenario& s, const json& v) {
         return assign(parse_count(as_text(v)), s.fleet.max_attempts);
       }},
      {"fleet.deadline",
       [](Scenario& s, const json& v) {
         return assign(parse_positive_duration(as_text(v)), s.fleet.deadline_ns);
       }},
      {"fleet.retry_after",
       [](Scenario& s, const json& v) {
         return assign(parse_enum(kRetryAfterModes, as_text(v), "a Retry-After mode"),
                       s.fleet.retry_after);
       }},
      {"fleet.retry_budget",
       [](Scenario& s, const json& v) {
         return assign(parse_retry_budget(as_text(v)), s.fleet.retry_budget);
       }},
      {"fleet.breaker",
       [](Scenario& s, const json& v) {
         return assign(parse_breaker(as_text(v)), s.fleet.breaker);
       }},
      // The preset first (scenario_from_json and build_scenario see to the order), then the
      // fields that refine it.
      {"fleet.policy",
       [](Scenario& s, const json& v) { return apply_policy_preset(s.fleet, as_text(v)); }},
      {"fleet.multiplier",
       [](Scenario& s, const json& v) {
         return assign(parse_positive_real(as_text(v)), s.fleet.multiplier);
       }},
      {"fleet.randomization",
       [](Scenario& s, const json& v) {
         return assign(parse_fraction(as_text(v)), s.fleet.randomization);
       }},
      {"fleet.jitter",
       [](Scenario& s, const json& v) {
         return assign(parse_duration_ns(as_text(v)), s.fleet.jitter_ns);
       }},
      {"fleet.retry_quota",
       [](Scenario& s, const json& v) {
         return assign(parse_retry_quota(as_text(v)), s.fleet.retry_quota);
       }},
      {"fleet.adaptive_rate",
       [](Scenario& s, const json& v) {
         return assign(parse_on_off(as_text(v)), s.fleet.adaptive_rate);
       }},
      {"fleet.adaptive_throttle",
       [](Scenario& s, const json& v) {
         return assign(
             parse_windowed<AdaptiveThrottleConfig>(
                 as_text(v), false, "an adaptive throttle; expected K,WINDOW (e.g. 2,2m)"),
             s.fleet.adaptive_throttle);
       }},
      {"fleet.retry_ratio",
       [](Scenario& s, const json& v) {
         return assign(parse_windowed<RetryRatioConfig>(
                           as_text(v), true, "a retry ratio; expected RATIO,WINDOW (e.g. 0.1,2m)"),
                       s.fleet.retry_ratio);
       }},
      {"fleet.timeout",
       [](Scenario& s, const json& v) {
         return assign(parse_positive_duration(as_text(v)), s.fleet.timeout_ns);
       }},
      {"fleet.seed",
       [](Scenario& s, const json& v) {
         std::int64_t seed = 0;
         auto e = assign(parse_count(as_text(v)), seed);
         s.fleet.seed = static_cast<std::uint64_t>(seed);
         return e;
       }},
      {"fleet.tokens",
       [](Scenario& s, const json& v) { return assign(parse_count(as_text(v)), s.fleet.tokens); }},
  };
  return table;
}

}  // namespace

std::optional<std::string> set_field(Scenario& s, std::string_view field, const json& value) {
  for (const auto& f : fields()) {
    if (f.name != field) continue;
    if (value.is_null())
      return std::string(field) + ": null is not a value; leave the key out instead";
    if (auto error = f.set(s, value)) return std::string(field) + ": " + *error;
    return std::nullopt;
  }
  // The nearest key is the likely fix; fifty names are not.
  auto candidates = field_names();
  candidates.insert(candidates.end(), {"provider", "fleet"});  // the sections, for "fleets"
  const auto near = did_you_mean(field, candidates);
  return "unknown key '" + std::string(field) + "'" +
         (near.empty() ? "; the keys are listed in docs/SCENARIO.md" : near);
}

std::vector<std::string> field_names() {
  std::vector<std::string> names;
  for (const auto& f : fields()) names.emplace_back(f.name);
  return names;
}

Parsed<StrategyKind> parse_strategy(std::string_view text) {
  return parse_enum(kStrategies, text, "a strategy");
}

// "0s-30s", "0s-30s:529", "10s-20s:reset"
Parsed<OutageWindow> parse_outage(std::string_view text) {
  const std::string t(text);
  const auto bad = [&](const std::string& why) {
    return Parsed<OutageWindow>::fail("'" + t + "' is not an outage (" + why +
                                      "); expected START-END[:STATUS] with STATUS one of " +
                                      enum_choices(kOutageActions) + ", e.g. 0s-30s:503");
  };
  const auto dash = t.find('-');
  if (dash == std::string::npos) return bad("no '-'");
  const auto colon = t.find(':', dash);
  const auto start = parse_duration_ns(t.substr(0, dash));
  const auto end =
      parse_duration_ns(t.substr(dash + 1, colon == std::string::npos ? colon : colon - dash - 1));
  if (!start) return bad(start.error());
  if (!end) return bad(end.error());
  if (*end <= *start) return bad("it ends before it starts");
  OutageWindow w{*start, *end, OutageAction::kStatus503};
  if (colon != std::string::npos) {
    const auto action = parse_enum(kOutageActions, t.substr(colon + 1), "an outage status");
    if (!action) return bad(action.error());
    w.action = *action;
  }
  return Parsed<OutageWindow>::ok(w);
}

std::string format_outage(const OutageWindow& w) {
  return format_duration(w.start_ns) + "-" + format_duration(w.end_ns) + ":" +
         std::string(enum_name(kOutageActions, w.action));
}

std::string_view to_string(LimiterKind k) {
  return enum_name(kLimiters, k);
}
std::string_view to_string(WorkloadKind k) {
  return enum_name(kWorkloads, k);
}
std::string_view to_string(StrategyKind k) {
  return enum_name(kStrategies, k);
}
std::string_view to_string(RetryAfterMode k) {
  return enum_name(kRetryAfterModes, k);
}
std::string_view to_string(RateLimitHeaders k) {
  return enum_name(kHeaderDialects, k);
}
std::string_view to_string(Dialect k) {
  return enum_name(kDialects, k);
}
RateLimitHeaders ratelimit_headers_of(const ProviderConfig& p) {
  if (p.ratelimit_headers) return *p.ratelimit_headers;
  switch (p.dialect) {
    case Dialect::kOpenAi:
      return RateLimitHeaders::kOpenAi;
    case Dialect::kAnthropic:
      return RateLimitHeaders::kAnthropic;
    case Dialect::kAws:
      return RateLimitHeaders::kNone;  // DynamoDB and Bedrock send none
    case Dialect::kGeneric:
      break;
  }
  return RateLimitHeaders::kIetf;
}
std::string_view to_string(ProviderMode k) {
  return enum_name(kModes, k);
}

}  // namespace stampede
