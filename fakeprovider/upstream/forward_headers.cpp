#include "upstream/forward_headers.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "dashboard_cookie.hpp"
#include "http_token.hpp"

namespace stampede {
namespace {

constexpr std::array<std::string_view, 6> kHopByHop = {
    "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade"};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool listed(std::string_view name, const auto& names) {
  return std::any_of(names.begin(), names.end(),
                     [&](const auto& n) { return ascii_iequals(name, n); });
}

}  // namespace

std::vector<std::string> connection_field_names(std::string_view value) {
  std::vector<std::string> names;
  while (!value.empty()) {
    const auto comma = value.find(',');
    const std::string_view name = trim_ows(value.substr(0, comma));
    if (!name.empty()) names.push_back(lower(name));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return names;
}

std::string origin_form(std::string_view target) {
  if (target.starts_with('/')) return std::string(target);
  const auto scheme = target.find("://");
  if (scheme == std::string_view::npos) return "/";
  const auto path = target.find_first_of("/?", scheme + 3);
  if (path == std::string_view::npos) return "/";
  return (target[path] == '?' ? "/" : "") + std::string(target.substr(path));
}

bool passes_back(std::string_view name, const std::vector<std::string>& connection_names) {
  return !listed(name, kHopByHop) && !listed(name, connection_names) &&
         !ascii_iequals(name, "content-length");
}

std::vector<std::string> upstream_request_headers(const std::vector<HeaderField>& fields,
                                                  const std::vector<std::string>& strip,
                                                  const HopFacts& hop) {
  std::vector<std::string> named_by_connection;
  for (const auto& [name, value] : fields) {
    if (ascii_iequals(name, "connection")) {
      for (auto& n : connection_field_names(value)) named_by_connection.push_back(std::move(n));
    }
  }
  std::vector<std::string> out;
  std::string forwarded_for, via;
  for (const auto& [name, value] : fields) {
    if (listed(name, kHopByHop) || listed(name, named_by_connection) || listed(name, strip) ||
        ascii_iequals(name, "host") || ascii_iequals(name, "content-length") ||
        ascii_iequals(name, "expect") || ascii_iequals(name, "x-forwarded-proto"))
      continue;
    // Repeats of these are one list (RFC 9110 5.3): joined, with this hop at the end.
    if (ascii_iequals(name, "x-forwarded-for")) {
      forwarded_for += std::string(value) + ", ";
    } else if (ascii_iequals(name, "via")) {
      via += std::string(value) + ", ";
    } else if (ascii_iequals(name, "cookie")) {
      // A browser sends a dashboard's cookie to every port of its host, this one too: it is
      // the dashboard's, never the upstream's.
      const auto kept = without_dashboard_cookies(value);
      if (!kept.empty()) out.push_back(std::string(name) + ": " + kept);
    } else {
      out.push_back(std::string(name) + ": " + std::string(value));
    }
  }
  out.push_back("X-Forwarded-For: " + forwarded_for + std::string(hop.client_ip));
  out.push_back("X-Forwarded-Proto: " + std::string(hop.proto));
  out.push_back("Via: " + via + "1.1 stampede");
  return out;
}

}  // namespace stampede
