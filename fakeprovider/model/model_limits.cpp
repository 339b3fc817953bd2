#include "model/model_limits.hpp"

#include "model/dialect.hpp"

namespace stampede {

ModelRoute route_model(const ProviderConfig& p, std::string_view model) {
  // At most kMaxModels names: a scan is as quick as a hash of the name.
  for (std::size_t i = 0; i < p.models.size(); ++i) {
    if (p.models[i].name == model) return {false, i};
  }
  return {p.models_only, p.models.size()};
}

ModelLimits limits_of_row(const ProviderConfig& p, std::size_t row) {
  if (row < p.models.size()) return p.models[row];
  ModelLimits top;
  top.allowance = p.allowance;
  top.token_allowance = p.token_allowance;
  top.input_token_allowance = p.input_token_allowance;
  top.output_token_allowance = p.output_token_allowance;
  top.max_concurrent = p.max_concurrent;
  return top;
}

std::string_view model_row_name(const ProviderConfig& p, std::size_t row) {
  if (p.models.empty()) return {};
  return row < p.models.size() ? std::string_view(p.models[row].name) : kOtherModels;
}

std::string unknown_model_body(Dialect dialect, std::string_view model) {
  if (dialect == Dialect::kOpenAi)
    return openai_error_body(
        "The model `" + std::string(model) + "` does not exist or you do not have access to it.",
        "invalid_request_error", std::nullopt, "model_not_found");
  return anthropic_error_body("not_found_error", "model: " + std::string(model));
}

}  // namespace stampede
