#include "server/request_headers.hpp"

#include <optional>

#include "http_token.hpp"
#include "model/credential_key.hpp"

namespace stampede {
namespace {

void offer_framing_field(RequestFraming& framing, std::string_view name, std::string_view value) {
  if (ascii_iequals(name, "Transfer-Encoding")) {
    framing.transfer_encoding.push_back(value);
  } else if (ascii_iequals(name, "Content-Length")) {
    if (framing.content_length_fields++ == 0) framing.content_length = value;
  }
}

std::optional<std::string_view> lookup(const RequestHead& head, std::string_view name) {
  const std::string_view* value = head.find(name);
  return value ? std::optional<std::string_view>(*value) : std::nullopt;
}

std::string_view tenant(const ProviderConfig& p, std::optional<std::string_view> value) {
  return value ? credential_key(p.tenant_header, *value) : "";
}

RowRequest row_request(const ProviderConfig& p, std::string_view url, std::string_view method,
                       std::optional<std::string_view> if_match) {
  RowRequest row;
  if (p.mode != ProviderMode::kOcc || url != "/row") return row;
  row.op = method == "GET" ? RowOp::kRead : method == "PUT" ? RowOp::kWrite : RowOp::kNone;
  row.if_match = if_match;
  return row;
}

bool counts_tokens(const ProviderConfig& p) {
  return p.token_allowance || p.spend_cap;
}

// The header first; then the body's field, when there is one to read.
DeclaredTokens declared_tokens(const ProviderConfig& p, std::optional<std::string_view> header,
                               std::string_view body) {
  if (header || p.token_field.empty()) return parse_declared_tokens(header);
  if (body.size() > kMaxTokenBody) return {std::nullopt, true};
  return declared_tokens_in_body(body, p.token_field);
}

}  // namespace

RequestFraming framing_of(const RequestHead& head) {
  RequestFraming framing;
  framing.http_1_0 = head.http_1_0;
  for (const HeadField& f : head.fields) offer_framing_field(framing, f.name, f.value);
  return framing;
}

std::string_view tenant_of(const RequestHead& head, const ProviderConfig& p) {
  return tenant(p, lookup(head, p.tenant_header));
}

SendHeaders send_headers_of(const RequestHead& head, const SendRules& rules) {
  SendHeaders headers;
  for (const HeadField& f : head.fields) offer_send_header(rules, headers, f.name, f.value);
  return headers;
}

RowRequest row_request_of(const RequestHead& head, const ProviderConfig& p, std::string_view path) {
  if (p.mode != ProviderMode::kOcc) return {};
  return row_request(p, path, head.method, lookup(head, "If-Match"));
}

DeclaredTokens declared_tokens_of(const RequestHead& head, const ProviderConfig& p,
                                  std::string_view body) {
  if (!counts_tokens(p)) return {};
  return declared_tokens(p, lookup(head, p.token_header), body);
}

std::optional<std::int64_t> token_header_count(const RequestHead& head, const ProviderConfig& p) {
  return parse_declared_tokens(lookup(head, p.token_header)).count;
}

std::int64_t llm_input_tokens(const RequestHead& head, const ProviderConfig& p,
                              const LlmRequest& asked) {
  return token_header_count(head, p).value_or(asked.input_tokens);
}

std::optional<LlmCharge> llm_charge_of(const RequestHead& head, const ProviderConfig& p,
                                       const std::optional<LlmRequest>& asked) {
  if (!asked) return std::nullopt;
  return LlmCharge{llm_input_tokens(head, p, *asked), asked->max_tokens, asked->stream,
                   asked->model};
}

}  // namespace stampede
