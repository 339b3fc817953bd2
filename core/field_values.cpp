#include "field_values.hpp"

#include <array>
#include <charconv>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "duration.hpp"
#include "http_token.hpp"

namespace stampede {
namespace {

// Comma-separated parts, e.g. "500,5,10,1".
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t comma; (comma = text.find(',', from)) != std::string::npos; from = comma + 1)
    parts.push_back(text.substr(from, comma - from));
  parts.push_back(text.substr(from));
  return parts;
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

std::string format_windowed(double x, std::int64_t window_ns) {
  std::ostringstream out;
  out << x << "," << format_duration(window_ns);
  return out.str();
}

}  // namespace

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

Parsed<std::int64_t> parse_positive_duration(const std::string& text) {
  auto d = parse_duration_ns(text);
  if (d && *d <= 0) return Parsed<std::int64_t>::fail("'" + text + "' must be longer than zero");
  return d;
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

const char* format_on_off(bool on) {
  return on ? "on" : "off";
}

// "5ms" (fixed) or "5ms-20ms" (uniform in the range).
Parsed<Latency> parse_latency(const std::string& text) {
  // From the second character: a leading '-' is a negative start, not an empty one.
  const auto dash = text.find('-', 1);
  const auto lo = parse_duration_ns(text.substr(0, dash));
  // A part of the range is quoted alone: name the whole value too ("-5ms" is "" and "5ms").
  if (!lo) return Parsed<Latency>::fail("'" + text + "': " + lo.error());
  auto hi = lo;
  if (dash != std::string::npos) hi = parse_duration_ns(text.substr(dash + 1));
  if (!hi) return Parsed<Latency>::fail("'" + text + "': " + hi.error());
  if (*hi < *lo) return Parsed<Latency>::fail("'" + text + "': the range's end is below its start");
  return Parsed<Latency>::ok({*lo, *hi});
}

std::string format_latency(std::int64_t min_ns, std::int64_t max_ns) {
  return format_duration(min_ns) + (max_ns != min_ns ? "-" + format_duration(max_ns) : "");
}

Parsed<TokenRange> parse_token_range(const std::string& text) {
  const auto dash = text.find('-');
  const auto lo = parse_count(text.substr(0, dash));
  const auto hi = dash == std::string::npos ? lo : parse_count(text.substr(dash + 1));
  const auto bad = [&](const char* why) {
    return Parsed<TokenRange>::fail("'" + text + "' " + why +
                                    "; give a token count such as 200, or a range MIN-MAX such as "
                                    "50-400");
  };
  if (!lo || !hi) return bad("is not a whole number of tokens >= 0 or a range of them");
  if (*hi < *lo) return bad("is a range whose end is below its start");
  // Every token is an event on a loop: a bound keeps one answer from running for days.
  if (*hi > kMaxOutputTokens) return bad("is over 1000000 tokens");
  return Parsed<TokenRange>::ok({*lo, *hi});
}

std::string format_token_range(const TokenRange& r) {
  return std::to_string(r.min) + (r.max != r.min ? "-" + std::to_string(r.max) : "");
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

std::string format_retry_budget(const RetryBudgetConfig& b) {
  std::ostringstream out;
  out << b.max_tokens << "," << b.token_ratio;
  return out.str();
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

std::string format_breaker(const BreakerConfig& b) {
  return std::to_string(b.failures) + "," + format_duration(b.cooldown_ns);
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

std::string format_hop_delay(const HopDelay& h) {
  return format_duration(h.mean_ns) + "," + format_duration(h.sd_ns);
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

std::string format_retry_quota(const RetryQuotaConfig& q) {
  std::ostringstream out;
  out << q.capacity << "," << q.retry_cost << "," << q.timeout_cost << "," << q.success_refund;
  return out.str();
}

Parsed<AdaptiveThrottleConfig> parse_adaptive_throttle(const std::string& text) {
  return parse_windowed<AdaptiveThrottleConfig>(
      text, false, "an adaptive throttle; expected K,WINDOW (e.g. 2,2m)");
}

std::string format_adaptive_throttle(const AdaptiveThrottleConfig& t) {
  return format_windowed(t.k, t.window_ns);
}

Parsed<RetryRatioConfig> parse_retry_ratio(const std::string& text) {
  return parse_windowed<RetryRatioConfig>(text, true,
                                          "a retry ratio; expected RATIO,WINDOW (e.g. 0.1,2m)");
}

std::string format_retry_ratio(const RetryRatioConfig& r) {
  return format_windowed(r.ratio, r.window_ns);
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

std::string format_outage(const OutageWindow& w, std::string (*duration)(std::int64_t)) {
  return duration(w.start_ns) + "-" + duration(w.end_ns) + ":" +
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
std::string_view to_string(ProviderMode k) {
  return enum_name(kModes, k);
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

}  // namespace stampede
