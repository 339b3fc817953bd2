#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario.hpp"

namespace stampede {

// The retry policies client libraries ship, by name (docs/POLICIES.md gives each one's source).
// Applying a preset sets every retry-policy field of the fleet (strategy, base, cap, shape,
// attempts, Retry-After handling and every guard) and leaves the workload alone; fields given
// after it override it one by one.
std::optional<std::string> apply_policy_preset(FleetConfig& fleet, std::string_view name);

std::vector<std::string> policy_preset_names();

}  // namespace stampede
