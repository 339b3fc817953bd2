#include "check_advice.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>

#include "report_format.hpp"
#include "summary.hpp"

namespace stampede {
namespace {

struct AdviceRow {
  std::initializer_list<std::string_view> metrics;
  std::string_view topic;
  std::string_view change;
  // Said before the change to a fleet without jitter (or one whose strategy is not known), left
  // out for one that jitters already: telling it to add jitter would send it the wrong way.
  std::string_view jitter_first = {};
};

// docs/READING.md, "What each gated metric means, and what to change when it fails", in short.
// The figures there are the reference storm's; these say what to change, whatever the run.
constexpr std::string_view kAddJitter =
    "Add jitter: a strategy without it (exponential) retries in lockstep, a jittered one "
    "(--strategy full-jitter) spreads the fleet over each wait.";
constexpr std::string_view kHerd =
    "Make the first window wide enough for the fleet (clients / --base within the allowance; "
    "loadgen advise gives the "
    "smallest base that fits). Keep --cap high enough for the windows to grow: a low cap meets "
    "the recovery with the whole fleet. Take a Retry-After with jitter (--retry-after jittered "
    "where the hints are per client, ignore where they are not), never exact against a fixed "
    "window.";
const std::array<AdviceRow, 11>& advice_rows() {
  static const std::array<AdviceRow, 11> rows{{
      {{"peak_ratio", "peak_retry_ratio", "peak_arrivals", "peak_retries", "lockstep",
        "status_ratio_429"},
       "the herd: more retries in one second than the provider admits",
       kHerd,
       kAddJitter},
      {{"drain_s"},
       "the backlog drains slowly",
       "A lower --base or --cap, but not below what the peak allows (drain and peak pull against "
       "each other; loadgen advise gives the smallest base that keeps the peak in bounds). "
       "Honour a Retry-After where the provider's hints are per client.",
       "Jitter first: it lets the provider admit a full allowance every second instead of one "
       "window a wave."},
      {{"dead_letter_ratio", "dead_lettered"},
       "items given up on",
       "Make the attempts and the cap outlast the outage: the sum of the waits must be longer "
       "than it (--max-attempts, --cap), and a --deadline longer than the outage you plan for. If "
       "the dead letters' last status (in --dead-letter) is a 4xx other than 429, the provider "
       "refuses them for good: no retry setting fixes that."},
      {{"delivered", "delivered_ratio"},
       "items not delivered",
       "If nothing got through, look at what came back: a 404 to every request is the URL, a "
       "401 the key, no answer the target. If items were given up, make the attempts and the cap "
       "outlast the outage (--max-attempts, --cap, --deadline); if they were unfinished, the run "
       "stopped before the drain."},
      {{"amplification", "requests", "retries", "retry_share", "attempts_p99"},
       "too many requests per item",
       "Fewer, later retries: a larger --base, and a --cap not so low that clients spin through "
       "an outage. Add a guard that stops retrying a provider that is down (--retry-budget, "
       "--breaker, --retry-quota, --adaptive-throttle, or a client library's preset with "
       "--policy). Honour a Retry-After where the provider's hints are per client."},
      {{"unfinished"},
       "items still going when the run stopped",
       "The run was too short for the drain (a longer --max-duration), or the policy never gives "
       "up on an item that cannot succeed (bound it with --max-attempts or --deadline)."},
      {{"p50_s", "p95_s", "p99_s"},
       "slow items",
       "Item latency counts the backoff from the item's intended start: it is high with a long "
       "drain (jitter first) and with a large --base even when the drain is short. Lower the "
       "base, but not below what the peak allows (loadgen advise)."},
      {{"status_ratio_5xx", "status_ratio_503", "status_ratio_529"},
       "the provider failing or overloaded",
       "5xx answers are the provider's outage or overload, which retries add to: keep --cap high "
       "enough for the windows to grow through it, and add a guard that stops retrying a provider "
       "that is down (--retry-budget, --breaker, --retry-quota, --adaptive-throttle)."},
      {{"hint_share"},
       "Retry-After followed exactly",
       "Every client that sleeps the same hint comes back in the same second: take it with "
       "jitter (--retry-after jittered), or ignore it where the provider's hints are not per "
       "client."},
      {{"lateness_p50_ms", "lateness_p99_ms", "sim_divergence", "status_ratio_connect_error"},
       "the harness, not the policy",
       "A late harness (lateness_p99_ms high) is the machine: fewer clients, --loops, or a "
       "--time-scale nearer 1. Connection errors: fakeprovider --processes N, --max-connections, "
       "ulimit -n. A divergence from the simulation with neither is the provider's settings: set "
       "the scenario's provider to what the target enforces."},
      {{"status_ratio_timeout"},
       "no answer within the timeout",
       "The target is slow or down: a longer --timeout if it is slow, and a guard that stops "
       "retrying a provider that is down (--breaker, --retry-budget)."},
  }};
  return rows;
}

}  // namespace

FleetJitter fleet_jitter(const Results& r) {
  // exec's fleet is a program's own: its scenario's strategy is not what it did.
  if (r.engine == "exec") return FleetJitter::kUnknown;
  switch (r.scenario.fleet.strategy) {
    case StrategyKind::kNone:
    case StrategyKind::kFixed:
    case StrategyKind::kExponential:
      return FleetJitter::kNone;
    default:
      return FleetJitter::kJitters;
  }
}

namespace {

// A value in its metric's unit: "543 s", "12 ms", "7,508".
std::string in_unit(std::string_view metric, double v) {
  const auto unit_ns = metric_unit_ns(metric);
  if (unit_ns == kNsPerSec) return format_count(v) + " s";
  if (unit_ns == kNsPerMs) return format_count(v) + " ms";
  return format_count(v);
}

// Past an upper limit: a multiple when it is twice the limit or more, else what is over.
std::string over_text(const std::string& metric, double actual, double limit) {
  if (actual == limit) return "at the limit, which the check excludes";
  if (limit > 0 && actual >= 2 * limit) return format_count(actual / limit) + "\u00d7 the limit";
  std::string out = in_unit(metric, actual - limit) + " over";
  if (limit > 0) out += " (" + format_count((actual / limit - 1) * 100) + "%)";
  return out;
}

// Short of a lower limit.
std::string short_text(const std::string& metric, double actual, double limit) {
  if (actual == limit) return "at the limit, which the check excludes";
  std::string out = in_unit(metric, limit - actual) + " short";
  if (limit > 0) out += " (" + format_count(actual / limit * 100) + "% of it)";
  return out;
}

}  // namespace

CheckAdvice advice_for(std::string_view metric, FleetJitter jitter) {
  for (const auto& row : advice_rows()) {
    if (std::find(row.metrics.begin(), row.metrics.end(), metric) == row.metrics.end()) continue;
    std::string change(row.change);
    if (!row.jitter_first.empty() && jitter != FleetJitter::kJitters)
      change = std::string(row.jitter_first) + " " + change;
    return {std::string(row.topic), change};
  }
  const auto field = std::find_if(kMetrics.begin(), kMetrics.end(),
                                  [&](const MetricField& m) { return m.name == metric; });
  if (field == kMetrics.end())
    return {"a check this version does not know",
            "Its metric is not one of this version's; the report that wrote it names it."};
  return {std::string(metric) + ": " + std::string(field->meaning),
          "No retry setting is named for it: compare it with the run's other checks and charts."};
}

std::string checked_metric(std::string_view check) {
  const auto a = parse_assertion(check);
  return a ? a->metric : "";
}

std::string miss_text(const Verdict& v) {
  if (v.refused) return "not judged: " + v.why;
  const auto a = parse_assertion(v.text);
  std::string out;
  if (!a) {
    out = "measured " + format_count(v.actual);
  } else {
    const std::string limit = a->rhs_metric.empty()
                                  ? in_unit(a->metric, v.expected)
                                  : a->rhs_metric + " (" + in_unit(a->metric, v.expected) + ")";
    out = "measured " + in_unit(a->metric, v.actual) + ", needs " + a->op + " " + limit + ": ";
    if (a->op == "<" || a->op == "<=") {
      out += over_text(a->metric, v.actual, v.expected);
    } else if (a->op == ">" || a->op == ">=") {
      out += short_text(a->metric, v.actual, v.expected);
    } else if (a->op == "==") {
      out += "off by " + in_unit(a->metric, std::abs(v.actual - v.expected));
    } else {
      out += "equal to it";
    }
  }
  return v.why.empty() ? out : out + ". " + v.why;
}

std::vector<Verdict> distinct_verdicts(const std::vector<Verdict>& verdicts) {
  std::vector<Verdict> out;
  for (const auto& v : verdicts) {
    if (std::none_of(out.begin(), out.end(), [&](const Verdict& o) { return o.text == v.text; }))
      out.push_back(v);
  }
  return out;
}

}  // namespace stampede
