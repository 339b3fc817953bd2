#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parsed.hpp"
#include "scenario.hpp"

namespace stampede {

// With --provider-admin there is one truth about the provider: the settings the fakeprovider
// enforces (GET /admin/settings). A run that described other limits would compare its
// arrivals with a simulation of a provider that never was, and gate on it.

// A provider field loadgen's scenario gave (file or flag) with another value than the
// provider enforces; both as a flag spells them.
struct ProviderDisagreement {
  std::string key;     // "allowance"
  std::string flag;    // what sets it in loadgen: "--allowance", or "provider.dialect"
  std::string ours;    // "4000/min"
  std::string theirs;  // "1000/s"
};

struct ProviderAgreement {
  ProviderConfig provider;  // what the provider enforces: the run's, every field
  std::vector<ProviderDisagreement> disagreements;
};

// `enforced` is the provider section of the provider's settings, as to_json prints a
// scenario's. Fields loadgen's scenario left out are the provider's; those it gave must say
// the same (compared as printed, so 60/min and 1/s differ: a window is part of a limit).
Parsed<ProviderAgreement> agree_on_provider(const Scenario& ours, const nlohmann::json& enforced);

// The refusal, naming both sides' values and the two ways out, for the provider at `where`.
std::string disagreement_error(const std::vector<ProviderDisagreement>& disagreements,
                               const std::string& where);

}  // namespace stampede
