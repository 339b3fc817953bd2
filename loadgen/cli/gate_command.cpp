#include "cli/gate_command.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/junit_writer.hpp"
#include "cli/usage_errors.hpp"
#include "exit_codes.hpp"
#include "gate.hpp"
#include "results.hpp"

namespace stampede {
namespace {

// The provider's per-item record: its own document's section, or the one exec embeds.
bool has_provider_results(const nlohmann::json& doc) {
  if (doc.contains("provider_results")) return true;
  const auto it = doc.find("provider");
  return it != doc.end() && it->is_object() && it->contains("results");
}

// A live run's comparison with its simulation, which sim_divergence is read from.
bool has_sim_divergence(const nlohmann::json& doc) {
  const auto c = doc.find("comparison");
  return c != doc.end() && c->is_object() &&
         c->value("arrivals_per_second", nlohmann::json::object()).contains("sim_divergence");
}

}  // namespace

int run_gate_command(const GateCommand& cmd) {
  std::ifstream in(cmd.input);
  if (!in) return usage_error("gate: cannot read results file '" + cmd.input + "'");
  std::stringstream text;
  text << in.rdbuf();
  const auto doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded())
    return usage_error("gate: results file '" + cmd.input + "' is not valid JSON");
  auto r = results_from_json(doc);
  if (!r) return usage_error("gate: results file '" + cmd.input + "': " + r.error());
  MetricContext context = metric_context(*r, has_provider_results(doc));
  context.sim_comparison = has_sim_divergence(doc);
  const auto checks =
      gate_assertions(r->scenario.expectations, cmd.asserts, cmd.expect_none, context);
  if (!checks) return usage_error(checks.error());
  const auto verdicts = evaluate_gate(*checks, *r, context);
  for (const auto& v : verdicts) {
    if (cmd.quiet) continue;
    std::printf("  %s  %s (%g)%s\n", verdict_label(v), v.text.c_str(), v.actual,
                v.why.empty() ? "" : ("  " + v.why).c_str());
  }
  if (!cmd.junit.empty()) {
    if (auto error = write_verdicts_junit(cmd.junit, "stampede." + r->scenario.name, verdicts)) {
      std::fprintf(stderr, "loadgen: %s\n", error->c_str());
      return kExitUnreachable;
    }
  }
  return gate_exit_code(verdicts);
}

}  // namespace stampede
