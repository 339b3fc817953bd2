#pragma once

#include <cstdint>
#include <string>

#include "cli/usage_errors.hpp"
#include "policy/advise.hpp"

namespace stampede {

// loadgen advise's flags, as given: the fleet's and the allowance's override the scenario's.
struct AdviseArgs {
  std::string scenario;
  std::int64_t clients = 0;  // 0: the scenario's
  std::string allowance, strategy, base, cap, demand, over = "10m";
  std::int64_t max_attempts = -1;  // < 0: the scenario's
  bool json = false;
  bool check = false;
};

// The arithmetic's input, or every usage error in the flags, each one line naming its flag.
Checked<AdviceInput> check_advise(const AdviseArgs& a);

// Prints the advice (JSON with json); kExitFailed when check and no retry round fits.
int run_advise_command(const AdviceInput& in, bool json, bool check);

}  // namespace stampede
