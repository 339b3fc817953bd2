#include "gate.hpp"

#include <algorithm>

#include "exit_codes.hpp"

namespace stampede {
namespace {

// A metric not in the table (none, for the right side of a check against a number) needs
// nothing and is always exercised.
const MetricField* field_of(std::string_view metric) {
  for (const auto& m : kMetrics) {
    if (m.name == metric) return &m;
  }
  return nullptr;
}

MetricNeed need_of(std::string_view metric) {
  const auto* m = field_of(metric);
  return m ? m->needs : MetricNeed::kNothing;
}

MetricExercise exercise_of(std::string_view metric) {
  const auto* m = field_of(metric);
  return m ? m->exercise : MetricExercise::kAlways;
}

std::optional<std::string> unmet(const std::string& metric, const MetricContext& c) {
  switch (need_of(metric)) {
    case MetricNeed::kNothing:
      return std::nullopt;
    case MetricNeed::kAllowance:
      if (c.allowance) return std::nullopt;
      return metric +
             " is measured against the provider's allowance, and none is declared: give the "
             "scenario's provider.allowance or --allowance (or a capacity, --capacity)";
    case MetricNeed::kProviderView:
      if (c.provider_view) return std::nullopt;
      return metric +
             " is the provider's own record, and this run has none: give --provider-admin "
             "with a fakeprovider's admin URL, in an unsharded run";
    case MetricNeed::kProviderResults:
      if (c.provider_results) return std::nullopt;
      return metric +
             " is read from the provider's per-item record, and this run has none: use loadgen "
             "exec against a fakeprovider, or gate fakeprovider's own results document "
             "(--results-out, GET /admin/results)";
    case MetricNeed::kSimComparison:
      if (c.sim_comparison) return std::nullopt;
      return metric +
             " sets a live run's arrivals against its own simulation, and this run has none: "
             "loadgen run computes it (and loadgen merge of every shard), not simulate or exec";
    case MetricNeed::kClientView:
      if (c.client_view) return std::nullopt;
      return metric +
             " is read from loadgen's own clients' record of each send, and this run has none "
             "(a provider never sees an answer that did not come, nor when a client meant to "
             "send): use loadgen run, or simulate";
    case MetricNeed::kItemSends:
      if (c.client_view || c.provider_results) return std::nullopt;
      return metric +
             " counts each item's sends, and this run has no record of them: loadgen's own "
             "clients keep one (run, simulate), and for an exec fleet the provider's per-item "
             "record (its results document)";
  }
  return std::nullopt;
}

std::string count_text(double n) {
  return std::to_string(static_cast<std::int64_t>(n));
}

// Whether the record knows which sends were retries: every request carries its send number
// (the clients' own, or the provider's attribution standing in for an exec fleet's).
std::int64_t numbered_sends(const Recording& r) {
  return r.client_by_send.total() + r.client_by_send.overflow_total();
}

// Why a retry metric cannot judge this run (a usage error), or nullopt.
std::optional<std::string> unexercised(const std::string& metric, const Results& r) {
  const auto numbered = numbered_sends(r.recording);
  if (numbered < r.recording.requests) {
    return metric + " cannot be computed: " + std::to_string(numbered) + " of " +
           std::to_string(r.recording.requests) +
           " requests carry a send number, so which were retries is not known; have each "
           "client send X-Attempt, an item header (X-Request-Id) or X-Client-Id: {client} "
           "(docs/ADMIN_API.md, \"Which send an arrival is\")";
  }
  if (r.summary.retries > 0) return std::nullopt;
  return metric + " is not exercised: the fleet never retried (0 retries in " +
         count_text(r.summary.requests) +
         " requests), so it says nothing about the retry policy; push the fleet over the "
         "provider's limit: more clients (--clients), a lower allowance (--allowance), or an "
         "outage (--outage 0s-10s:503)";
}

// Why a latency or drain metric fails a run that delivered nothing, or nullopt.
std::optional<std::string> undelivered(const std::string& metric, const Results& r) {
  if (r.summary.delivered > 0) return std::nullopt;
  return "no item was delivered, so " + metric +
         " measures nothing: " + no_delivery_reason(r.recording);
}

// The rule on what the finished run did: refused (a usage error), failed, or nullopt.
struct Judged {
  std::string why;
  bool refused = false;
};
std::optional<Judged> exercise_error(const Assertion& a, const Results& r) {
  for (const auto* metric : {&a.metric, &a.rhs_metric}) {
    if (exercise_of(*metric) != MetricExercise::kRetries) continue;
    if (auto why = unexercised(*metric, r)) return Judged{*why, true};
  }
  for (const auto* metric : {&a.metric, &a.rhs_metric}) {
    if (exercise_of(*metric) != MetricExercise::kDelivery) continue;
    if (auto why = undelivered(*metric, r)) return Judged{*why, false};
  }
  return std::nullopt;
}

std::int64_t seen(const Recording& r, Outcome o) {
  const auto& h = r.client_by_outcome;
  std::int64_t n = 0;
  for (std::size_t b = 0; b < h.bins(); ++b) n += h.at(b, static_cast<std::size_t>(o));
  return n;
}

// "404 to 30 and 401 to 20 of 50 requests", from the statuses the clients read.
std::string statuses_text(const Recording& r, std::int64_t answered) {
  std::string out;
  for (const auto& [status, n] : r.statuses) {
    if (classify_status(status) != Outcome::kClientError) continue;
    out += (out.empty() ? "" : " and ") + std::to_string(status) + " to " + std::to_string(n);
  }
  if (out.empty()) out = "4xx to " + std::to_string(answered);
  return out + " of " + std::to_string(r.requests) + " requests";
}

std::string outcome_breakdown(const Recording& r) {
  std::string out;
  for (std::size_t o = 0; o < kOutcomeCount; ++o) {
    const auto n = seen(r, static_cast<Outcome>(o));
    if (n == 0) continue;
    out += (out.empty() ? "" : ", ") + std::string(kOutcomeNames[o]) + ": " + std::to_string(n);
  }
  return out;
}

bool is_default_expectation(const Assertion& a) {
  static const Assertion kDefault = *parse_assertion(kDefaultExpectation);
  return same_check(a, kDefault);
}

}  // namespace

MetricContext metric_context(std::string_view engine, const ProviderConfig& provider,
                             bool provider_view, bool provider_results) {
  return {provider.allowance.has_value() || provider.capacity.has_value(), provider_view,
          provider_results, engine == "run" || engine == "simulate"};
}

MetricContext metric_context(const Results& r, bool provider_results) {
  return metric_context(r.engine, r.scenario.provider, r.provider_side, provider_results);
}

std::optional<std::string> meaning_error(const Assertion& a, const MetricContext& context) {
  for (const auto* metric : {&a.metric, &a.rhs_metric}) {
    if (auto why = unmet(*metric, context)) return "assertion '" + a.text + "': " + *why;
  }
  return std::nullopt;
}

Parsed<std::vector<Assertion>> gate_assertions(const std::vector<std::string>& expectations,
                                               const std::vector<std::string>& asserts,
                                               bool expect_none, const MetricContext& planned,
                                               const std::string& expectations_from) {
  const auto from_file = [&](const std::string& e) {
    if (expectations_from.empty()) return e;
    return "scenario file '" + expectations_from + "': expectations: " + e;
  };
  // The scenario's first, alone: a check given twice is kept with its first spelling, so an
  // error in one the file and --assert both give is the file's.
  auto from_scenario = parse_assertions(expectations);
  if (!from_scenario) return Parsed<std::vector<Assertion>>::fail(from_file(from_scenario.error()));
  auto texts = expectations;
  texts.insert(texts.end(), asserts.begin(), asserts.end());
  if (!expect_none) texts.emplace_back(kDefaultExpectation);
  auto checks = parse_assertions(texts);
  if (!checks) return checks;
  for (std::size_t i = 0; i < checks->size(); ++i) {
    auto e = meaning_error((*checks)[i], planned);
    if (!e) continue;
    return Parsed<std::vector<Assertion>>::fail(i < from_scenario->size() ? from_file(*e) : *e);
  }
  return checks;
}

std::vector<Verdict> evaluate_gate(const std::vector<Assertion>& checks, const Results& r,
                                   const MetricContext& actual) {
  std::vector<Verdict> out;
  for (const auto& a : checks) {
    Verdict v = evaluate(a, r.summary);
    if (auto e = meaning_error(a, actual)) {
      v.passed = false;
      v.why = *e;
    } else if (auto judged = exercise_error(a, r)) {
      v.passed = false;
      v.why = judged->why;
      v.refused = judged->refused;
    } else if (!v.passed && is_default_expectation(a)) {
      v.why = "no item was delivered: " + no_delivery_reason(r.recording);
    }
    out.push_back(std::move(v));
  }
  return out;
}

int gate_exit_code(const std::vector<Verdict>& verdicts) {
  int code = kExitOk;
  for (const auto& v : verdicts) {
    if (v.refused) return kExitUsage;
    if (!v.passed) code = kExitFailed;
  }
  return code;
}

std::string no_delivery_reason(const Recording& r) {
  if (r.requests == 0) return "no request was sent";
  const auto timeouts = seen(r, Outcome::kTimeout);
  const auto refused = seen(r, Outcome::kConnectError);
  const std::int64_t answered = r.requests - timeouts - refused;
  const std::string unanswered = std::to_string(timeouts) + " timed out and " +
                                 std::to_string(refused) + " were refused or reset";
  if (answered <= 0) {
    return "the target never answered: of " + std::to_string(r.requests) + " requests, " +
           unanswered;
  }
  if (seen(r, Outcome::kBadResponse) == answered) {
    return "the target answered only with what is not HTTP/1.x, bad_response to " +
           std::to_string(answered) + " of " + std::to_string(r.requests) + " requests" +
           (timeouts + refused > 0 ? " (" + unanswered + ")" : "") +
           "; is it an HTTP/1.x server (not TLS, not HTTP/2 only), or a broken proxy between?";
  }
  if (seen(r, Outcome::kClientError) == answered) {
    return "the target answered only statuses that are not retryable, " +
           statuses_text(r, answered) + (timeouts + refused > 0 ? " (" + unanswered + ")" : "") +
           "; check the URL, the method, the headers and the key";
  }
  return "no request got a 2xx (" + outcome_breakdown(r) + ")";
}

}  // namespace stampede
