#pragma once

#include <string>
#include <string_view>

namespace stampede {

// The dashboards' cookie (fakeprovider's admin /dashboard, loadgen --dashboard): a random
// value of the process's own, never the admin token, that opens only the read-only routes.
// Browsers send a 127.0.0.1 cookie to every port of that host, so the name carries the
// dashboard's port (two dashboards on one host keep their own), and proxy mode drops every
// cookie of this prefix from what it forwards upstream.
inline constexpr std::string_view kDashboardCookiePrefix = "stampede_dashboard_";

std::string dashboard_cookie_name(int port);

// A cookie's value in a Cookie header ("a=1; b=2"), or "" when it is not there.
std::string cookie_value(std::string_view header, std::string_view name);

// The Cookie header without the dashboards' cookies (the pairs named kDashboardCookiePrefix...),
// the others as they came, "; " between them; "" when none is left.
std::string without_dashboard_cookies(std::string_view header);

}  // namespace stampede
