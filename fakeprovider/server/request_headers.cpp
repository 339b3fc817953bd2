#include "server/request_headers.hpp"

#include <microhttpd.h>

#include "http_token.hpp"
#include "model/credential_key.hpp"

namespace stampede {
namespace {

struct SendHeaderReader {
  const SendRules& rules;
  SendHeaders headers;
};

MHD_Result offer_send_header(void* cls, MHD_ValueKind /*kind*/, const char* name,
                             const char* value) {
  auto& reader = *static_cast<SendHeaderReader*>(cls);
  offer_send_header(reader.rules, reader.headers, name, value ? value : "");
  return MHD_YES;
}

MHD_Result offer_framing_header(void* cls, MHD_ValueKind /*kind*/, const char* name,
                                const char* value) {
  auto& framing = *static_cast<RequestFraming*>(cls);
  const std::string_view v = value ? value : "";
  if (ascii_iequals(name, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
    framing.transfer_encoding.push_back(v);
  } else if (ascii_iequals(name, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
    if (framing.content_length_fields++ == 0) framing.content_length = v;
  }
  return MHD_YES;
}

}  // namespace

RequestFraming framing_of(MHD_Connection* c, const char* version) {
  RequestFraming framing;
  framing.http_1_0 = version && std::string_view(version) == MHD_HTTP_VERSION_1_0;
  MHD_get_connection_values(c, MHD_HEADER_KIND, &offer_framing_header, &framing);
  return framing;
}

std::string_view tenant_of(MHD_Connection* c, const ProviderConfig& p) {
  const char* value = MHD_lookup_connection_value(c, MHD_HEADER_KIND, p.tenant_header.c_str());
  return value ? credential_key(p.tenant_header, value) : "";
}

SendHeaders send_headers_of(MHD_Connection* c, const SendRules& rules) {
  SendHeaderReader reader{rules, {}};
  MHD_get_connection_values(c, MHD_HEADER_KIND, &offer_send_header, &reader);
  return reader.headers;
}

RowRequest row_request_of(MHD_Connection* c, const ProviderConfig& p, std::string_view url,
                          std::string_view method) {
  RowRequest row;
  if (p.mode != ProviderMode::kOcc || url != "/row") return row;
  row.op = method == "GET" ? RowOp::kRead : method == "PUT" ? RowOp::kWrite : RowOp::kNone;
  if (const char* m = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-Match")) row.if_match = m;
  return row;
}

DeclaredTokens declared_tokens_of(MHD_Connection* c, const ProviderConfig& p,
                                  std::string_view body) {
  // Without a token quota the header means nothing, and is not looked at.
  if (!p.token_allowance && !p.spend_cap) return {};
  // The header first; then the body's field, when there is one to read.
  const char* header = MHD_lookup_connection_value(c, MHD_HEADER_KIND, p.token_header.c_str());
  if (header || p.token_field.empty()) return parse_declared_tokens(header);
  if (body.size() > kMaxTokenBody) return {std::nullopt, true};
  return declared_tokens_in_body(body, p.token_field);
}

}  // namespace stampede
