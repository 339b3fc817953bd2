#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "live/provider_admin.hpp"
#include "live/request.hpp"
#include "scenario.hpp"

namespace stampede {

// Before any load, with --provider-admin: what the fakeprovider enforces (GET /admin/settings)
// held against the command's scenario and --url, so that the summary, the results, the report
// and the simulation describe the provider the fleet met (provider_agreement.hpp).
struct EnforcedProvider {
  std::optional<ProviderConfig> provider;  // the run's provider section; none: refused
  nlohmann::json settings;                 // the provider's answer, for the results
  int code = 0;                            // when refused: kExitUsage or kExitUnreachable
  std::string error;                       // when refused: the one line that says why
};

EnforcedProvider read_enforced_provider(const ProviderAdmin& admin, const Scenario& ours,
                                        const TargetUrl& url);

}  // namespace stampede
