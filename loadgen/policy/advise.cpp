#include "policy/advise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "policy/backoff.hpp"

namespace stampede {
namespace {

// Rounds listed when attempts are unbounded: enough to reach the cap and show it holds.
constexpr std::int64_t kUnboundedRounds = 12;

bool spreads(StrategyKind k) {
  return k == StrategyKind::kFullJitter || k == StrategyKind::kEqualJitter ||
         k == StrategyKind::kDecorrelatedJitter;
}

// Decorrelated jitter draws from [base, 3 * previous]: its upper bound triples each round.
double decorrelated_upper_s(const AdviceInput& in, std::int64_t attempt) {
  return std::min(ns_to_s(in.cap_ns), ns_to_s(in.base_ns) * std::pow(3.0, attempt));
}

double window_s(const AdviceInput& in, const Backoff& b, std::int64_t attempt) {
  switch (in.strategy) {
    case StrategyKind::kFullJitter:
      return ns_to_s(b.ceiling(attempt));
    case StrategyKind::kEqualJitter:
      return ns_to_s(b.ceiling(attempt)) / 2;
    case StrategyKind::kDecorrelatedJitter:
      return std::max(decorrelated_upper_s(in, attempt) - ns_to_s(in.base_ns), 1e-9);
    default:
      return ns_to_s(in.lockstep_spread_ns);
  }
}

// The longest and the typical wait before the given retry.
std::pair<double, double> wait_s(const AdviceInput& in, const Backoff& b, std::int64_t attempt) {
  const double ceiling = ns_to_s(b.ceiling(attempt));
  switch (in.strategy) {
    case StrategyKind::kNone:
      return {0, 0};
    case StrategyKind::kFixed:
      return {ns_to_s(std::min(in.base_ns, in.cap_ns)), ns_to_s(std::min(in.base_ns, in.cap_ns))};
    case StrategyKind::kExponential:
      return {ceiling, ceiling};
    case StrategyKind::kFullJitter:
      return {ceiling, ceiling / 2};
    case StrategyKind::kEqualJitter:
      return {ceiling, ceiling * 3 / 4};
    case StrategyKind::kDecorrelatedJitter: {
      const double upper = decorrelated_upper_s(in, attempt);
      return {upper, (upper + ns_to_s(in.base_ns)) / 2};
    }
    default:
      // The library strategies (docs/POLICIES.md) centre on the exponential schedule; advise
      // knows neither their shape nor their guards.
      return {ceiling, ceiling};
  }
}

}  // namespace

Advice advise(const AdviceInput& in) {
  Advice a;
  a.allowance_per_s = in.allowance.per_second();
  const Backoff backoff(in.strategy, in.base_ns, in.cap_ns);
  const auto n = static_cast<double>(in.clients);
  const std::int64_t rounds = in.max_attempts > 0 ? in.max_attempts : kUnboundedRounds;
  double worst = 0;
  double typical = 0;
  for (std::int64_t k = 1; k <= rounds; ++k) {
    const double w = window_s(in, backoff, k);
    const double rate = n / w;
    const bool fits = rate <= a.allowance_per_s;
    a.rounds.push_back({k, w, rate, fits, n / std::max(w, 1.0)});
    if (fits && !a.first_fitting_round) a.first_fitting_round = k;
    const auto [longest, usual] = wait_s(in, backoff, k);
    worst += longest;
    typical += usual;
  }
  if (in.max_attempts > 0) {
    a.worst_wait_s = worst;
    a.typical_wait_s = typical;
  }
  if (spreads(in.strategy)) {
    // The first round's window is base times this factor; it must hold clients / allowance.
    const double factor = window_s(in, backoff, 1) / ns_to_s(in.base_ns);
    a.min_base_s = n / a.allowance_per_s / factor;
  }
  if (in.demand) {
    const double per_min = 60.0;
    const double deficit = in.demand->per_second() * per_min - a.allowance_per_s * per_min;
    a.deficit_per_min = std::max(0.0, deficit);
    a.backlog = *a.deficit_per_min * ns_to_s(in.horizon_ns) / per_min;
  }
  return a;
}

nlohmann::json to_json(const AdviceInput& in, const Advice& a) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& r : a.rounds) {
    rounds.push_back({{"attempt", r.attempt},
                      {"window_s", r.window_s},
                      {"rate_per_s", r.rate_per_s},
                      {"fits", r.fits},
                      {"per_1s_bin", r.per_1s_bin}});
  }
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"clients", in.clients},
          {"allowance", format_rate(in.allowance)},
          {"strategy", to_string(in.strategy)},
          {"base_s", ns_to_s(in.base_ns)},
          {"cap_s", ns_to_s(in.cap_ns)},
          {"max_attempts", in.max_attempts},
          {"allowance_per_s", a.allowance_per_s},
          {"rounds", rounds},
          {"first_fitting_round", opt(a.first_fitting_round)},
          {"min_base_s", opt(a.min_base_s)},
          {"worst_wait_s", opt(a.worst_wait_s)},
          {"typical_wait_s", opt(a.typical_wait_s)},
          {"deficit_per_min", opt(a.deficit_per_min)},
          {"backlog", opt(a.backlog)},
          {"backlog_after_s", ns_to_s(in.horizon_ns)}};
}

std::string format_advice(const AdviceInput& in, const Advice& a) {
  std::string out;
  char line[256];
  // Lines without figures are appended as they are: a format string must be a literal.
  auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("fleet: %lld clients, %s, base %s, cap %s, %s\n", static_cast<long long>(in.clients),
      std::string(to_string(in.strategy)).c_str(), format_duration(in.base_ns).c_str(),
      format_duration(in.cap_ns).c_str(),
      in.max_attempts ? (std::to_string(in.max_attempts) + " retries").c_str()
                      : "unbounded retries");
  add("allowance: %s = %.1f/s\n", format_rate(in.allowance).c_str(), a.allowance_per_s);
  out +=
      "retry rounds (the whole fleet spread over each round's window; a rate is over that "
      "window, simulate's peaks over 1 s bins):\n";
  for (const auto& r : a.rounds) {
    char ratio[96];
    std::snprintf(ratio, sizeof ratio, "%.1fx the allowance", r.rate_per_s / a.allowance_per_s);
    // A round narrower than a second is one spike in a 1 s bin: what simulate would report.
    if (r.window_s < 1) {
      const std::size_t used = std::strlen(ratio);
      std::snprintf(ratio + used, sizeof ratio - used, " over %.3fs, %.1fx in a 1 s bin",
                    r.window_s, r.per_1s_bin / a.allowance_per_s);
    }
    add("  round %2lld: window %7.3fs -> %9.1f/s  %s\n", static_cast<long long>(r.attempt),
        r.window_s, r.rate_per_s, r.fits ? "fits" : ratio);
  }
  if (a.first_fitting_round) {
    add("first round that fits: %lld\n", static_cast<long long>(*a.first_fitting_round));
  } else {
    out += "no listed round fits the allowance\n";
  }
  if (a.min_base_s) {
    add("smallest base whose first round fits: %.1fs (base >= clients / allowance per second)\n",
        *a.min_base_s);
  } else {
    out += "no base spreads a round: without jitter the fleet arrives together every round\n";
  }
  if (a.worst_wait_s) {
    add("wait before an item is given up: worst case %.1fs, typical %.1fs\n", *a.worst_wait_s,
        *a.typical_wait_s);
  } else {
    out += "wait before an item is given up: unbounded (no attempt cap; set --max-attempts)\n";
  }
  if (a.deficit_per_min) {
    add("demand %s: deficit %.0f per minute; backlog after %s: %.0f items\n",
        format_rate(*in.demand).c_str(), *a.deficit_per_min, format_duration(in.horizon_ns).c_str(),
        *a.backlog);
  }
  return out;
}

}  // namespace stampede
