#pragma once

#include <string_view>

#include "model/provider_policy.hpp"
#include "model/request_framing.hpp"
#include "model/send_attribution.hpp"
#include "model/versioned_row.hpp"
#include "request_head.hpp"
#include "scenario.hpp"

struct MHD_Connection;

namespace stampede {

// What the data plane reads from a request's headers, as libmicrohttpd holds them (or as the
// native server parsed them): views into the connection's memory, valid until the request is
// answered.

// What libmicrohttpd 0.9.75 lets through that parse_request_head refuses, checked once its
// headers are complete: the method (check_method); the target as it came (is_request_target;
// on_uri's copy); each field's name a token (whitespace before a colon stays in the name) and
// its value without a control byte (a bare CR stays in it); every line of the head one field,
// ended by CR LF (it joins a folded line to the one before, drops a field with no name, cuts
// a value at a NUL); the tenant header once (check_tenant_fields). method and version: the
// handler's, which point into the head.
HeadVerdict check_head(MHD_Connection* c, const char* method, const char* version,
                       std::string_view target, std::string_view tenant_header);

// Its Transfer-Encoding and Content-Length fields; version: the request line's.
RequestFraming framing_of(MHD_Connection* c, const char* version);
// The tenant: provider.tenant_header's credential key, or empty without one.
std::string_view tenant_of(MHD_Connection* c, const ProviderConfig& p);
// Every send rule's headers, in one pass: repeats included, which a lookup by name would miss.
SendHeaders send_headers_of(MHD_Connection* c, const SendRules& rules);
// occ mode's row request (GET or PUT /row, and its If-Match); none otherwise.
RowRequest row_request_of(MHD_Connection* c, const ProviderConfig& p, std::string_view url,
                          std::string_view method);
// The tokens it declares: provider.token_header, else provider.token_field of the body (kept
// up to kMaxTokenBody); nothing without a token quota.
DeclaredTokens declared_tokens_of(MHD_Connection* c, const ProviderConfig& p,
                                  std::string_view body);

// The same, from a head the native server parsed (which parse_request_head checked but for
// the tenant header's repeats); path: request_path's.
RequestFraming framing_of(const RequestHead& head);
std::string_view tenant_of(const RequestHead& head, const ProviderConfig& p);
SendHeaders send_headers_of(const RequestHead& head, const SendRules& rules);
RowRequest row_request_of(const RequestHead& head, const ProviderConfig& p, std::string_view path);
DeclaredTokens declared_tokens_of(const RequestHead& head, const ProviderConfig& p,
                                  std::string_view body);

// The most of a body kept to read provider.token_field from.
inline constexpr std::size_t kMaxTokenBody = 1 << 20;

}  // namespace stampede
