#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assertion.hpp"
#include "parsed.hpp"
#include "results.hpp"
#include "scenario.hpp"

namespace stampede {

// What the metrics of a run can be measured against: a metric that needs what the run lacks
// means nothing there, and a check on it must never pass.
struct MetricContext {
  bool allowance = false;         // the scenario declares an allowance (or a capacity)
  bool provider_view = false;     // the summary reads the provider's own record
  bool provider_results = false;  // and its per-item record (the provider's results document)
  bool client_view = true;        // loadgen's own clients sent (run, simulate): not exec's
                                  // programs, not the provider's own document
  bool sim_comparison = false;    // the live run set against its own simulation (its caller
                                  // sets it: run and merge compute one)
};

// engine: the results' ("run", "simulate", "exec", "fakeprovider").
MetricContext metric_context(std::string_view engine, const ProviderConfig& provider,
                             bool provider_view, bool provider_results = false);
// A finished run's, from its results.
MetricContext metric_context(const Results& r, bool provider_results = false);

// Why `a` means nothing in context, naming the metric and what it needs; nullopt if it does.
std::optional<std::string> meaning_error(const Assertion& a, const MetricContext& context);

// Every run, simulation and gate is held to it unless --expect-none: a fleet that delivered
// nothing (a wrong URL, a bad key, a target that never answers, a policy that gives up) failed.
inline constexpr std::string_view kDefaultExpectation = "delivered > 0";

// A run's checks: the scenario's expectations, then --assert, then the default expectation
// (unless expect_none); a check given twice kept once; each meaningful in the planned
// context. The first error otherwise, as a usage error says it; an expectation's names the
// scenario file it came from (expectations_from), which the user must edit, not a flag.
Parsed<std::vector<Assertion>> gate_assertions(const std::vector<std::string>& expectations,
                                               const std::vector<std::string>& asserts,
                                               bool expect_none, const MetricContext& planned,
                                               const std::string& expectations_from = "");

// The verdicts on a finished run, the one rule every command gates by. A check whose metric
// lost its meaning during the run (the provider's stats could not be read) fails, saying why.
// A retry metric (MetricExercise::kRetries) is refused when the record does not number every
// send (which were retries is not known) or when the fleet never retried (not exercised: it
// says nothing about the retry policy); a latency or drain metric (kDelivery) over no
// delivered item fails. A failed delivery check says what the target answered.
std::vector<Verdict> evaluate_gate(const std::vector<Assertion>& checks, const Results& r,
                                   const MetricContext& actual);

// The verdicts' exit code: kExitUsage when one was refused, kExitFailed when one failed,
// kExitOk otherwise.
int gate_exit_code(const std::vector<Verdict>& verdicts);

// Why no item got through, from what the clients saw, in one line.
std::string no_delivery_reason(const Recording& r);

}  // namespace stampede
