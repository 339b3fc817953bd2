#include "live/request.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <memory>

#include "url_redaction.hpp"

namespace stampede {
namespace {

// RFC 9110 tchar.
bool is_token_char(char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char);
}

bool is_field_value(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u != 0x7f);
  });
}

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};

std::string url_part(CURLU* u, CURLUPart part) {
  char* value = nullptr;
  if (curl_url_get(u, part, &value, 0) != CURLUE_OK || !value) return {};
  std::string out(value);
  curl_free(value);
  return out;
}

}  // namespace

Parsed<TargetUrl> parse_target_url(std::string_view text, std::string_view flag) {
  const std::string t(text);
  const auto bad = [&](const std::string& why) {
    return Parsed<TargetUrl>::fail(std::string(flag) + ": '" + redact_url(t) + "' " + why +
                                   "; expected http://HOST[:PORT][/PATH] or https://...");
  };
  std::unique_ptr<CURLU, UrlDeleter> u(curl_url());
  if (!u) return bad("could not be parsed (out of memory)");
  // No default scheme: "localhost:8080" must not quietly become http://localhost:8080.
  if (const auto rc = curl_url_set(u.get(), CURLUPART_URL, t.c_str(), 0); rc != CURLUE_OK)
    return bad(std::string("is not a URL (") + curl_url_strerror(rc) + ")");
  TargetUrl url;
  url.text = t;
  url.scheme = url_part(u.get(), CURLUPART_SCHEME);
  if (url.scheme != "http" && url.scheme != "https")
    return bad("has scheme '" + url.scheme + "'; only http and https are supported");
  url.host = url_part(u.get(), CURLUPART_HOST);
  if (url.host.empty()) return bad("has no host");
  if (url.host.front() == '[' && url.host.back() == ']')
    url.host = url.host.substr(1, url.host.size() - 2);
  char* port = nullptr;
  if (curl_url_get(u.get(), CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK || !port)
    return bad("has no usable port");
  url.port = std::atoi(port);
  curl_free(port);
  if (url.port <= 0 || url.port > 65535) return bad("has a port outside 1-65535");
  url.target = url_part(u.get(), CURLUPART_PATH);
  if (url.target.empty()) url.target = "/";
  if (const auto query = url_part(u.get(), CURLUPART_QUERY); !query.empty())
    url.target += "?" + query;
  return Parsed<TargetUrl>::ok(std::move(url));
}

std::optional<std::string> header_error(std::string_view header) {
  const std::string h(header);
  const auto colon = header.find(':');
  if (colon == std::string_view::npos || !is_token(header.substr(0, colon))) {
    return "--header: '" + h + "' is not a header; expected 'Name: value' with a name of " +
           "letters, digits and !#$%&'*+-.^_`|~";
  }
  // The value may be a credential (Authorization): only the name and the control characters
  // are said (one_line shows them escaped).
  const auto value = header.substr(colon + 1);
  if (!is_field_value(value)) {
    std::string controls;
    for (const char c : value) {
      if (!is_field_value(std::string_view(&c, 1))) controls += c;
    }
    return "--header: the value of '" + h.substr(0, colon) + "' has a control character (" +
           controls + ")";
  }
  return std::nullopt;
}

std::optional<std::string> method_error(std::string_view method) {
  if (is_token(method)) return std::nullopt;
  return "--method: '" + std::string(method) + "' is not an HTTP method; expected e.g. GET or POST";
}

Parsed<std::vector<std::string>> parse_api_keys(std::string_view text) {
  std::vector<std::string> keys;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    if (!is_field_value(line)) {
      return Parsed<std::vector<std::string>>::fail(
          "--api-keys-file: line " + std::to_string(line_number) +
          " has a control character; expected one key per line");
    }
    keys.emplace_back(line);
  }
  if (keys.empty())
    return Parsed<std::vector<std::string>>::fail(
        "--api-keys-file: no keys; expected one key per line ('#' starts a comment)");
  return Parsed<std::vector<std::string>>::ok(std::move(keys));
}

}  // namespace stampede
