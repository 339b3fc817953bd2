#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "live/http/tls_settings.hpp"
#include "parsed.hpp"
#include "scenario.hpp"
#include "token_recording.hpp"

namespace stampede {

// A target URL, checked: http or https, a host, a port (given or the scheme's default).
struct TargetUrl {
  std::string text;  // as given
  std::string scheme;
  std::string host;  // without brackets for an IPv6 literal
  int port = 0;
  std::string target = "/";  // the request line's: path and query
};

// flag: the option the URL came from, named in the error.
Parsed<TargetUrl> parse_target_url(std::string_view text, std::string_view flag = "--url");

// What every client sends, apart from the per-attempt trace headers.
struct LiveRequest {
  TargetUrl url;
  std::string method = "GET";
  std::vector<std::string> headers;  // "Name: value", validated
  std::string body;
  std::string tenant_header = "X-Api-Key";
  std::vector<std::string> api_keys;  // client c sends api_keys[c % size]; none: no tenant header
  bool trace_headers = true;          // X-Client-Id, X-Request-Id, X-Attempt
  TlsSettings tls;                    // https only: whom to trust, which client certificate
  // --stream: every 2xx answer is read as an event stream in this dialect as it arrives.
  std::optional<Dialect> stream;
  // The token_limits section (docs/RESULTS.md): recorded when the fleet sends LLM requests or
  // its provider has token limits; what each LLM request asks of them, as the provider reads it.
  bool records_tokens = false;
  std::optional<TokenAsk> tokens_asked;
};

// "Name: value" with a token name and a value free of control characters; the error names
// the header and what is accepted.
std::optional<std::string> header_error(std::string_view header);
// A method is a token: GET, POST, PUT, ...
std::optional<std::string> method_error(std::string_view method);
// One key per line; blank lines and lines starting with '#' are skipped.
Parsed<std::vector<std::string>> parse_api_keys(std::string_view text);

}  // namespace stampede
