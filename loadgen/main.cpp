#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "advise.hpp"
#include "duration.hpp"
#include "generated/version.hpp"
#include "scenario_flags.hpp"
#include "simulate_command.hpp"

using namespace stampede;

namespace {

constexpr int kUsageError = 2;

// The scenario file and the flags that override its fields, as given.
struct ScenarioArgs {
  std::string path;
  std::map<std::string, std::vector<std::string>> values;  // field -> flag values
};

std::string flag_name_in_loadgen(const ScenarioFlag& f, bool provider) {
  if (!provider) return std::string(f.flag);
  for (const auto& fleet : kFleetFlags) {
    if (fleet.flag == f.flag) return "--provider-" + std::string(f.flag.substr(2));
  }
  return std::string(f.flag);
}

void add_scenario_flags(CLI::App& cmd, ScenarioArgs& args) {
  cmd.add_option("--scenario", args.path, "scenario file (JSON); flags override its fields")
      ->check(CLI::ExistingFile);
  auto add = [&](const ScenarioFlag& f, bool provider, const char* group) {
    auto* opt = cmd.add_option(flag_name_in_loadgen(f, provider), args.values[std::string(f.field)],
                               std::string(f.help));
    opt->group(group);
    if (!f.repeatable) opt->expected(1);
  };
  for (const auto& f : kFleetFlags) add(f, false, "Fleet");
  for (const auto& f : kProviderFlags) add(f, true, "Provider (simulated)");
}

Parsed<Scenario> scenario_from(const ScenarioArgs& args) {
  std::vector<FieldOverride> overrides;
  for (const auto& [field, values] : args.values) {
    if (values.empty()) continue;
    if (field == "provider.outages") {
      overrides.push_back({field, nlohmann::json(values)});
    } else {
      overrides.push_back({field, nlohmann::json(values.back())});
    }
  }
  return build_scenario(args.path, overrides);
}

int usage_error(const std::string& message) {
  std::cerr << "loadgen: " << message << "\n";
  return kUsageError;
}

struct SimulateArgs {
  ScenarioArgs scenario;
  std::vector<std::string> asserts;
  std::string out;
  std::string horizon;
  bool quiet = false;
};

int simulate_main(const SimulateArgs& a) {
  auto scenario = scenario_from(a.scenario);
  if (!scenario) return usage_error(scenario.error());
  auto texts = scenario->expectations;
  texts.insert(texts.end(), a.asserts.begin(), a.asserts.end());
  auto assertions = parse_assertions(texts);
  if (!assertions) return usage_error(assertions.error());
  SimulateCommand cmd{*scenario, *assertions, a.out, 0, a.quiet};
  if (!a.horizon.empty()) {
    auto h = parse_duration_ns(a.horizon);
    if (!h || *h <= 0)
      return usage_error("--horizon: " + (h ? "must be longer than zero" : h.error()));
    cmd.horizon_ns = *h;
  }
  return run_simulate_command(cmd);
}

struct AdviseArgs {
  std::string scenario;
  std::int64_t clients = 0;
  std::string allowance, strategy, base, cap, demand, over = "10m";
  std::int64_t max_attempts = -1;
  bool json = false;
};

int advise_main(const AdviseArgs& a) {
  std::vector<FieldOverride> overrides;
  if (a.clients > 0) overrides.push_back({"fleet.clients", a.clients});
  if (!a.allowance.empty()) overrides.push_back({"provider.allowance", a.allowance});
  if (!a.strategy.empty()) overrides.push_back({"fleet.strategy", a.strategy});
  if (!a.base.empty()) overrides.push_back({"fleet.base", a.base});
  if (!a.cap.empty()) overrides.push_back({"fleet.cap", a.cap});
  if (a.max_attempts >= 0) overrides.push_back({"fleet.max_attempts", a.max_attempts});
  auto s = build_scenario(a.scenario, overrides);
  if (!s) return usage_error(s.error());
  if (!s->provider.allowance)
    return usage_error("--allowance: advise needs the allowance, e.g. 4000/min");
  AdviceInput in;
  in.clients = s->fleet.clients;
  in.allowance = *s->provider.allowance;
  in.strategy = s->fleet.strategy;
  in.base_ns = s->fleet.base_ns;
  in.cap_ns = s->fleet.cap_ns;
  in.max_attempts = s->fleet.max_attempts;
  if (!a.demand.empty()) {
    auto d = parse_rate(a.demand);
    if (!d) return usage_error("--demand: " + d.error());
    in.demand = *d;
  }
  auto over = parse_duration_ns(a.over);
  if (!over || *over <= 0)
    return usage_error("--over: " + (over ? "must be longer than zero" : over.error()));
  in.horizon_ns = *over;
  const Advice advice = advise(in);
  std::cout << (a.json ? to_json(in, advice).dump(2) + "\n" : format_advice(in, advice));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "loadgen: run a fleet of retrying clients against a rate-limited provider, or simulate one.\n"
      "A provider never sees a delay, it sees an arrival rate: loadgen shows what a retry policy\n"
      "does to that rate at production concurrency."};
  app.set_version_flag("--version", std::string("loadgen ") + kVersion);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  loadgen simulate --scenario examples/storm.json --strategy full-jitter\n"
      "  loadgen advise --clients 400 --allowance 4000/min --strategy full-jitter --base 1s --cap "
      "8s "
      "--max-attempts 5");

  SimulateArgs sim;
  auto* simulate = app.add_subcommand(
      "simulate",
      "Run a scenario in virtual time: the same strategy, retry policy and provider model as a "
      "live run, deterministic for a seed, a million clients in seconds.");
  add_scenario_flags(*simulate, sim.scenario);
  simulate->add_option("--out", sim.out, "write the results JSON here");
  simulate->add_option("--assert", sim.asserts,
                       "METRIC OP VALUE, e.g. 'peak_ratio <= 2'; repeatable; exit 1 if any fails");
  simulate->add_option("--horizon", sim.horizon,
                       "stop at this scenario time; items still going are unfinished (default 7d)");
  simulate->add_flag("--quiet,-q", sim.quiet, "print nothing; exit code and --out only");
  simulate->footer(
      "Example:\n  loadgen simulate --scenario examples/storm.json --strategy exponential "
      "--out storm.json");

  AdviseArgs adv;
  auto* advise_cmd = app.add_subcommand(
      "advise",
      "The fleet arithmetic: each retry round's arrival rate, the first round that fits the "
      "allowance, the smallest base that fits, the waits, and the deficit of a demand above the "
      "allowance.");
  advise_cmd->add_option("--scenario", adv.scenario, "take the fleet and allowance from this file")
      ->check(CLI::ExistingFile);
  advise_cmd->add_option("--clients", adv.clients, "concurrent clients");
  advise_cmd->add_option("--allowance", adv.allowance, "N/s, N/min or N/h");
  advise_cmd->add_option("--strategy", adv.strategy, "backoff strategy");
  advise_cmd->add_option("--base", adv.base, "base delay");
  advise_cmd->add_option("--cap", adv.cap, "delay cap");
  advise_cmd->add_option("--max-attempts", adv.max_attempts,
                         "retries after the first send; 0 = unbounded");
  advise_cmd->add_option("--demand", adv.demand, "sustained demand, N/s, N/min or N/h");
  advise_cmd->add_option("--over", adv.over, "backlog horizon for --demand (default 10m)");
  advise_cmd->add_flag("--json", adv.json, "print JSON");
  advise_cmd->footer(
      "Example:\n  loadgen advise --clients 400 --allowance 4000/min --strategy full-jitter "
      "--base 1s --cap 8s --max-attempts 5");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other usage error: the problem, then where the choices are.
    return usage_error(std::string(e.what()) + " (see 'loadgen --help')");
  }
  if (simulate->parsed()) return simulate_main(sim);
  return advise_main(adv);
}
