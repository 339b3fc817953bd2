#pragma once

#include <string>
#include <string_view>

#include "parsed.hpp"

namespace stampede {

// Where fakeprovider --upstream forwards what it admits: http or https, a host, a port (given
// or the scheme's default) and a path prefix the request's own path goes below.
struct UpstreamUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // as written: an IPv6 literal keeps its brackets
  int port = 0;
  std::string prefix;  // "" or "/PREFIX", without a trailing slash

  // scheme://host:port/prefix: what a request's target is appended to.
  std::string base() const;
};

// http://HOST[:PORT][/PREFIX] or https://...; no user, query or fragment, since neither would
// mean anything in front of every request's own. The error says what is wrong and what is
// expected.
Parsed<UpstreamUrl> parse_upstream_url(std::string_view text);

}  // namespace stampede
