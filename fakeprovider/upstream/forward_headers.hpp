#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "header_field.hpp"

namespace stampede {

// What a proxy adds about the hop it made (RFC 9110 7.6.3, and the de facto X-Forwarded-*).
struct HopFacts {
  std::string_view client_ip;  // the connection's peer
  std::string_view proto = "http";
};

// The request's header fields as the upstream gets them, "Name: value" each, in their order:
// without the hop-by-hop fields (RFC 9110 7.6.1: Connection, the fields it names,
// Proxy-Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade), without Host, Content-Length
// and Expect (the upstream request has its own), without the names in strip (any case), without
// the dashboards' cookies (dashboard_cookie.hpp) in Cookie, which goes when none is left; with
// the client's address appended to X-Forwarded-For, X-Forwarded-Proto set, and this hop
// appended to Via.
std::vector<std::string> upstream_request_headers(const std::vector<HeaderField>& fields,
                                                  const std::vector<std::string>& strip,
                                                  const HopFacts& hop);

// Whether an upstream answer's header field is passed back to the client: not a hop-by-hop one
// (as above, plus those its Connection field names: connection_names), and not
// Content-Length, which the server writes itself from the body it sends.
bool passes_back(std::string_view name, const std::vector<std::string>& connection_names);

// The request target as a path and query below the upstream's prefix: origin-form as it came;
// of an absolute-form target (http://host/path?q), its path and query; anything else ("*")
// the root.
std::string origin_form(std::string_view target);

// The field names a Connection field's value lists (comma-separated tokens), lower-cased.
std::vector<std::string> connection_field_names(std::string_view value);

}  // namespace stampede
