#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "scenario.hpp"

namespace stampede {

// provider.models (docs/LLM.md#per-model): which set of limits a request's model is held to,
// and the row of the stats it counts in. Pure.
struct ModelRoute {
  bool refused = false;  // provider.models_only and not listed: 404 not_found_error
  // The listed model's index in provider.models, or models.size() for the top level's limits
  // (an unlisted model, or a request without one): the stats' "other" row.
  std::size_t row = 0;
  bool operator==(const ModelRoute&) const = default;
};
ModelRoute route_model(const ProviderConfig& p, std::string_view model);

// A row's limits: a listed model's own, or the provider's top-level ones.
ModelLimits limits_of_row(const ProviderConfig& p, std::size_t row);
// The name a row is counted under in the stats: the model's, or "other"; empty without
// provider.models (nothing is counted by model).
std::string_view model_row_name(const ProviderConfig& p, std::size_t row);
inline constexpr std::string_view kOtherModels = "other";

// The 404 a model the provider does not serve is answered, in the dialect's words: anthropic's
// not_found_error, openai's model_not_found.
std::string unknown_model_body(Dialect dialect, std::string_view model);

}  // namespace stampede
