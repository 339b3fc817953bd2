#include "model/credential_key.hpp"

#include "http_token.hpp"

namespace stampede {
namespace {

constexpr std::string_view kBlanks = " \t";

// "Bearer TOKEN": the scheme is case-insensitive (RFC 9110 11.1).
std::string_view bearer_token(std::string_view value) {
  constexpr std::string_view kScheme = "Bearer";
  if (value.size() <= kScheme.size() || !ascii_iequals(value.substr(0, kScheme.size()), kScheme) ||
      kBlanks.find(value[kScheme.size()]) == std::string_view::npos)
    return {};
  return trim_ows(value.substr(kScheme.size()));
}

// "AWS4-HMAC-SHA256 Credential=AKID/20250102/us-east-1/dynamodb/aws4_request, ...": AKID.
std::string_view sigv4_access_key(std::string_view value) {
  constexpr std::string_view kScheme = "AWS4-";
  constexpr std::string_view kCredential = "Credential=";
  if (value.substr(0, kScheme.size()) != kScheme) return {};
  const auto at = value.find(kCredential);
  if (at == std::string_view::npos) return {};
  const std::string_view rest = value.substr(at + kCredential.size());
  return rest.substr(0, rest.find_first_of("/, \t"));
}

}  // namespace

std::string_view credential_key(std::string_view header_name, std::string_view raw_value) {
  const std::string_view value = trim_ows(raw_value);
  if (!ascii_iequals(header_name, "Authorization")) return value;
  for (const std::string_view key : {bearer_token(value), sigv4_access_key(value)}) {
    if (!key.empty()) return key;
  }
  return value;
}

}  // namespace stampede
