#include "dashboard_cookie.hpp"

#include <algorithm>

namespace stampede {
namespace {

// Calls take(pair) for each "name=value" pair of a Cookie header, its leading spaces trimmed.
template <class Take>
void each_pair(std::string_view header, Take take) {
  while (!header.empty()) {
    const auto end = std::min(header.find(';'), header.size());
    auto pair = header.substr(0, end);
    pair.remove_prefix(std::min(pair.find_first_not_of(' '), pair.size()));
    if (!pair.empty()) take(pair);
    header.remove_prefix(std::min(end + 1, header.size()));
  }
}

}  // namespace

std::string dashboard_cookie_name(int port) {
  return std::string(kDashboardCookiePrefix) + std::to_string(port);
}

std::string cookie_value(std::string_view header, std::string_view name) {
  std::string value;
  each_pair(header, [&](std::string_view pair) {
    if (value.empty() && pair.size() > name.size() && pair.starts_with(name) &&
        pair[name.size()] == '=')
      value = pair.substr(name.size() + 1);
  });
  return value;
}

std::string without_dashboard_cookies(std::string_view header) {
  std::string kept;
  each_pair(header, [&](std::string_view pair) {
    if (pair.starts_with(kDashboardCookiePrefix)) return;
    if (!kept.empty()) kept += "; ";
    kept += pair;
  });
  return kept;
}

}  // namespace stampede
