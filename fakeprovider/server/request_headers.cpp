#include "server/request_headers.hpp"

#include <microhttpd.h>

#include <cstring>
#include <optional>

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

void offer_framing_field(RequestFraming& framing, std::string_view name, std::string_view value) {
  if (ascii_iequals(name, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
    framing.transfer_encoding.push_back(value);
  } else if (ascii_iequals(name, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
    if (framing.content_length_fields++ == 0) framing.content_length = value;
  }
}

MHD_Result offer_framing_header(void* cls, MHD_ValueKind /*kind*/, const char* name,
                                const char* value) {
  offer_framing_field(*static_cast<RequestFraming*>(cls), name, value ? value : "");
  return MHD_YES;
}

// libmicrohttpd 0.9.75 parses a head in place, in the connection's memory: a line's CR LF
// becomes two NULs, a field's colon one. So the head is walked from the request line's end to
// its blank line, and each line must be one field libmicrohttpd kept, in order: its name, a
// NUL, spaces or tabs, its value, two NULs. A line it joined to the one before (obs-fold: it
// appends it to a copy of the name made elsewhere), dropped (an empty name) or cut short (a
// NUL in a value, a bare LF) breaks the walk. The walk reads only bytes it reached through the
// fields' own strings, so none past what libmicrohttpd wrote.
struct HeadWalk {
  std::string_view tenant_header;
  const char* at = nullptr;  // where the next line starts, once past_line_end
  std::size_t tenant_fields = 0;
  HeadVerdict verdict{HeadVerdict::State::kComplete, 0, {}};
};

constexpr std::string_view kBrokenLine =
    "A header line is folded, or not a name, a colon and a value ended by CR LF";

// Steps over a line's end, two NULs by now (a CR LF's).
bool past_line_end(const char*& at) {
  if (at[0] != '\0' || at[1] != '\0') return false;
  at += 2;
  return true;
}

MHD_Result walk_field(void* cls, MHD_ValueKind /*kind*/, const char* name, std::size_t name_size,
                      const char* value, std::size_t value_size) {
  auto& walk = *static_cast<HeadWalk*>(cls);
  const auto refuse = [&](std::string_view reason) {
    walk.verdict = {HeadVerdict::State::kBad, 400, reason};
    return MHD_NO;
  };
  if (!is_http_token({name, name_size}))
    return refuse("A header line is not a name, a colon and a value");
  if (!value || !is_field_value({value, value_size}))
    return refuse("A header value holds a control character");
  if (!past_line_end(walk.at) || walk.at != name) return refuse(kBrokenLine);
  walk.at = name + name_size + 1;  // past the colon's NUL
  while (walk.at < value && (*walk.at == ' ' || *walk.at == '\t')) ++walk.at;
  if (walk.at != value) return refuse(kBrokenLine);
  walk.at = value + value_size;
  if (ascii_iequals({name, name_size}, walk.tenant_header)) ++walk.tenant_fields;
  return MHD_YES;
}

std::optional<std::string_view> lookup(MHD_Connection* c, const std::string& name) {
  const char* value = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name.c_str());
  return value ? std::optional<std::string_view>(value) : std::nullopt;
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

HeadVerdict check_head(MHD_Connection* c, const char* method, const char* version,
                       std::string_view target, std::string_view tenant_header) {
  if (const HeadVerdict v = check_method(method); v.state == HeadVerdict::State::kBad) return v;
  const auto* size = MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  // The request line in place: the method, one space (a NUL now), the target as it came, one
  // space and the version (libmicrohttpd skips any more spaces).
  const char* end = size ? method + size->header_size : method;
  const char* target_at = method + std::strlen(method) + 1;
  if (!is_request_target(target) || version != target_at + target.size() + 1 || version >= end)
    return {HeadVerdict::State::kBad, 400, "The request line is malformed"};
  HeadWalk walk{tenant_header, version + std::strlen(version)};
  MHD_get_connection_values_n(c, MHD_HEADER_KIND, &walk_field, &walk);
  if (walk.verdict.state == HeadVerdict::State::kBad) return walk.verdict;
  if (!past_line_end(walk.at) || !past_line_end(walk.at) || walk.at != end)
    return {HeadVerdict::State::kBad, 400, kBrokenLine};
  return check_tenant_fields(walk.tenant_fields);
}

RequestFraming framing_of(MHD_Connection* c, const char* version) {
  RequestFraming framing;
  framing.http_1_0 = version && std::string_view(version) == MHD_HTTP_VERSION_1_0;
  MHD_get_connection_values(c, MHD_HEADER_KIND, &offer_framing_header, &framing);
  return framing;
}

std::string_view tenant_of(MHD_Connection* c, const ProviderConfig& p) {
  return tenant(p, lookup(c, p.tenant_header));
}

SendHeaders send_headers_of(MHD_Connection* c, const SendRules& rules) {
  SendHeaderReader reader{rules, {}};
  MHD_get_connection_values(c, MHD_HEADER_KIND, &offer_send_header, &reader);
  return reader.headers;
}

RowRequest row_request_of(MHD_Connection* c, const ProviderConfig& p, std::string_view url,
                          std::string_view method) {
  if (p.mode != ProviderMode::kOcc) return {};
  return row_request(p, url, method, lookup(c, "If-Match"));
}

DeclaredTokens declared_tokens_of(MHD_Connection* c, const ProviderConfig& p,
                                  std::string_view body) {
  // Without a token quota the header means nothing, and is not looked at.
  if (!counts_tokens(p)) return {};
  return declared_tokens(p, lookup(c, p.token_header), body);
}

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

}  // namespace stampede
