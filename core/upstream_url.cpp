#include "upstream_url.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace stampede {
namespace {

bool host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

bool ipv6_char(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
}

// The path prefix's characters: RFC 3986 pchar and '/', no query or fragment.
bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-._~!$&'()*+,;=:@/%").find(c) != std::string_view::npos;
}

}  // namespace

std::string UpstreamUrl::base() const {
  return scheme + "://" + host + ":" + std::to_string(port) + prefix;
}

Parsed<UpstreamUrl> parse_upstream_url(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return Parsed<UpstreamUrl>::fail("'" + std::string(text) + "' " + why +
                                     "; expected http://HOST[:PORT][/PREFIX] or https://...");
  };
  UpstreamUrl url;
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return bad("has no scheme");
  url.scheme = std::string(text.substr(0, scheme_end));
  std::transform(url.scheme.begin(), url.scheme.end(), url.scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (url.scheme != "http" && url.scheme != "https")
    return bad("has scheme '" + url.scheme + "'; only http and https are supported");
  std::string_view rest = text.substr(scheme_end + 3);
  const auto path_at = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_at);
  const std::string_view path = path_at == std::string_view::npos ? "" : rest.substr(path_at);
  if (authority.find('@') != std::string_view::npos) return bad("has a user; give none");
  std::optional<std::string_view> port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return bad("has an unclosed '['");
    const std::string_view inside = authority.substr(1, close - 1);
    if (inside.empty() || !std::all_of(inside.begin(), inside.end(), ipv6_char))
      return bad("has a bracketed host that is not an IPv6 address");
    url.host = std::string(authority.substr(0, close + 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return bad("has characters after ']'");
    if (!after.empty()) port = after.substr(1);
  } else {
    const auto colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    if (!std::all_of(url.host.begin(), url.host.end(), host_char))
      return bad("has a host with characters a host name cannot have");
  }
  if (url.host.empty()) return bad("has no host");
  url.port = url.scheme == "https" ? 443 : 80;
  if (port) {
    if (port->empty() || port->size() > 5 ||
        !std::all_of(port->begin(), port->end(), [](char c) { return c >= '0' && c <= '9'; }))
      return bad("has a port that is not a number");
    url.port = std::stoi(std::string(*port));
    if (url.port < 1 || url.port > 65535) return bad("has a port outside 1-65535");
  }
  if (path.find_first_of("?#") != std::string_view::npos)
    return bad("has a query or fragment; the prefix is a path only");
  if (!std::all_of(path.begin(), path.end(), path_char))
    return bad("has a path with characters a URL path cannot have");
  url.prefix = std::string(path);
  while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  return Parsed<UpstreamUrl>::ok(std::move(url));
}

}  // namespace stampede
