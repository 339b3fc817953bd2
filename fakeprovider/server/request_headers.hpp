#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/llm_request.hpp"
#include "model/provider_policy.hpp"
#include "model/request_framing.hpp"
#include "model/send_attribution.hpp"
#include "model/versioned_row.hpp"
#include "request_head.hpp"
#include "scenario.hpp"

namespace stampede {

// What the data plane reads from a request's head, as the server parsed it (parse_request_head,
// which checked all of it but the tenant header's repeats): views into the connection's
// memory, valid until the request is answered.

// Its Transfer-Encoding and Content-Length fields.
RequestFraming framing_of(const RequestHead& head);
// The tenant: provider.tenant_header's credential key, or empty without one.
std::string_view tenant_of(const RequestHead& head, const ProviderConfig& p);
// Every send rule's headers, in one pass: repeats included, which a lookup by name would miss.
SendHeaders send_headers_of(const RequestHead& head, const SendRules& rules);
// occ mode's row request (GET or PUT /row, and its If-Match); none otherwise. path:
// request_path's.
RowRequest row_request_of(const RequestHead& head, const ProviderConfig& p, std::string_view path);
// The tokens it declares: provider.token_header, else provider.token_field of the body (kept
// up to kMaxTokenBody); nothing without a token quota.
DeclaredTokens declared_tokens_of(const RequestHead& head, const ProviderConfig& p,
                                  std::string_view body);
// The count provider.token_header declares, whether or not a token quota is in force: an LLM
// answer's usage reports it as the prompt's tokens. None when absent or malformed.
std::optional<std::int64_t> token_header_count(const RequestHead& head, const ProviderConfig& p);
// An LLM request's input tokens: declared in the token header, else the estimate from its body.
std::int64_t llm_input_tokens(const RequestHead& head, const ProviderConfig& p,
                              const LlmRequest& asked);
// What an LLM request asks of the token limits (llm_input_tokens, max_tokens, its model); none
// for a request that is not one.
std::optional<LlmCharge> llm_charge_of(const RequestHead& head, const ProviderConfig& p,
                                       const std::optional<LlmRequest>& asked);

// The most of a body kept to read provider.token_field from.
inline constexpr std::size_t kMaxTokenBody = 1 << 20;

}  // namespace stampede
