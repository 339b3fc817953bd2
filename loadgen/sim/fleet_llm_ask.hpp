#pragma once

#include <optional>
#include <string>

#include "model/provider_policy.hpp"
#include "model/reservation.hpp"
#include "scenario.hpp"
#include "token_recording.hpp"

namespace stampede {

// What a fleet's requests ask of the provider, read by the provider's own code from the body
// the live fleet sends: the simulator charges it, and a live run records it. Pure.

// The body every request of an LLM fleet sends (--stream, or --max-tokens without it).
std::string fleet_llm_body(const Scenario& s);

// What every request of an LLM fleet asks of the provider's LLM limits (docs/LLM.md): its
// input tokens the declared --input-tokens when the fleet declares them, else the estimate from
// that body. None: the fleet sends no LLM request.
std::optional<LlmCharge> fleet_llm_charge(const Scenario& s);

// What every request of the fleet declares: --input-tokens in the token header, else, for an
// LLM fleet against a provider that counts tokens from a body field (provider.token_field),
// the field of the body it sends, as the live provider reads it.
DeclaredTokens fleet_declared_tokens(const Scenario& s);

// fleet_llm_charge as the token_limits section records an admitted request: what the simulated
// provider charges, and what a live run records. None: the fleet sends no LLM request.
std::optional<TokenAsk> fleet_token_ask(const Scenario& s);

}  // namespace stampede
