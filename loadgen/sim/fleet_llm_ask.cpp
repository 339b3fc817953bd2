#include "sim/fleet_llm_ask.hpp"

#include "model/llm_request.hpp"
#include "policy/llm_request_body.hpp"

namespace stampede {

std::string fleet_llm_body(const Scenario& s) {
  return stream_request(s.provider.dialect, s.fleet.max_tokens, s.fleet.stream).body;
}

std::optional<LlmCharge> fleet_llm_charge(const Scenario& s) {
  if (!sends_llm_requests(s)) return std::nullopt;
  const ReadLlmRequest read = read_llm_request(s.provider.dialect, fleet_llm_body(s));
  if (!read.request) return std::nullopt;  // a dialect that streams nothing: refused before
  const LlmRequest& asked = *read.request;
  // Its model too: the provider's limits for that model (provider.models), as live.
  return LlmCharge{s.fleet.tokens.value_or(asked.input_tokens), asked.max_tokens, asked.stream,
                   asked.model};
}

DeclaredTokens fleet_declared_tokens(const Scenario& s) {
  const ProviderConfig& p = s.provider;
  const bool counts = p.token_allowance || p.spend_cap;
  if (s.fleet.tokens || !sends_llm_requests(s) || p.token_field.empty() || !counts)
    return {s.fleet.tokens, false};
  return declared_tokens_in_body(fleet_llm_body(s), p.token_field);
}

std::optional<TokenAsk> fleet_token_ask(const Scenario& s) {
  const auto charge = fleet_llm_charge(s);
  if (!charge) return std::nullopt;
  return TokenAsk{charge->input_tokens, charge->max_tokens};
}

}  // namespace stampede
