#include "cli/advise_command.hpp"

#include <iostream>
#include <utility>
#include <vector>

#include "cli/fleet_args.hpp"
#include "exit_codes.hpp"
#include "rate.hpp"
#include "scenario.hpp"

namespace stampede {
namespace {

std::vector<FieldOverride> overrides_of(const AdviseArgs& a) {
  std::vector<FieldOverride> overrides;
  if (a.clients > 0) overrides.push_back({"fleet.clients", a.clients});
  if (!a.allowance.empty()) overrides.push_back({"provider.allowance", a.allowance});
  if (!a.strategy.empty()) overrides.push_back({"fleet.strategy", a.strategy});
  if (!a.base.empty()) overrides.push_back({"fleet.base", a.base});
  if (!a.cap.empty()) overrides.push_back({"fleet.cap", a.cap});
  if (a.max_attempts >= 0) overrides.push_back({"fleet.max_attempts", a.max_attempts});
  return overrides;
}

void take_fleet(const AdviseArgs& a, AdviceInput& in, Errors& errors) {
  const auto s = take(build_scenario(a.scenario, overrides_of(a)), errors);
  if (!s) return;
  if (!s->provider.allowance) {
    errors.push_back("--allowance: advise needs the allowance, e.g. 4000/min");
    return;
  }
  in.clients = s->fleet.clients;
  in.allowance = *s->provider.allowance;
  in.strategy = s->fleet.strategy;
  in.base_ns = s->fleet.base_ns;
  in.cap_ns = s->fleet.cap_ns;
  in.max_attempts = s->fleet.max_attempts;
}

}  // namespace

Checked<AdviceInput> check_advise(const AdviseArgs& a) {
  Errors errors;
  AdviceInput in;
  take_fleet(a, in, errors);
  if (!a.demand.empty()) in.demand = take("--demand", parse_rate(a.demand), errors);
  if (auto over = take(positive_duration("--over", a.over), errors)) in.horizon_ns = *over;
  return checked(std::move(in), std::move(errors));
}

int run_advise_command(const AdviceInput& in, bool json, bool check) {
  const Advice advice = advise(in);
  std::cout << (json ? to_json(in, advice).dump(2) + "\n" : format_advice(in, advice));
  if (!check || advice.first_fitting_round) return kExitOk;
  std::cerr << "loadgen advise: --check: no retry round of " << in.clients
            << " clients fits the allowance; widen the jitter window (a larger --base or "
               "--cap, a jittered --strategy) or raise the allowance\n";
  return kExitFailed;
}

}  // namespace stampede
