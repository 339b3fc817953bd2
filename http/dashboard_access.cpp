#include "dashboard_access.hpp"

#include <httplib.h>
#include <sys/random.h>

#include <array>
#include <cstdio>
#include <stdexcept>

#include "constant_time.hpp"
#include "dashboard_cookie.hpp"
#include "json_text.hpp"

namespace stampede {
namespace {

// 128 bits from the kernel's generator, as hex: the cookie cannot be guessed, and is made
// anew by every process.
std::string random_cookie() {
  std::array<unsigned char, 16> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const auto n = getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0) throw std::runtime_error("getrandom failed: no random dashboard cookie");
    got += static_cast<std::size_t>(n);
  }
  std::string hex;
  for (const unsigned char b : bytes) {
    std::array<char, 3> two{};
    std::snprintf(two.data(), two.size(), "%02x", b);
    hex += two.data();
  }
  return hex;
}

bool token_param(const httplib::Request& req) {
  return req.method == "GET" && req.path == "/dashboard" && req.has_param("token");
}

}  // namespace

DashboardAccess::DashboardAccess(std::string token, std::string what, std::string token_flag)
    : token_(std::move(token)),
      what_(std::move(what)),
      token_flag_(std::move(token_flag)),
      cookie_(token_.empty() ? "" : random_cookie()) {}

void DashboardAccess::guard(httplib::Server& server, int port, RouteOf route_of) {
  cookie_name_ = dashboard_cookie_name(port);
  server.set_pre_routing_handler(
      [this, route_of = std::move(route_of)](const httplib::Request& req, httplib::Response& res) {
        if (allows(req, route_of(req))) return httplib::Server::HandlerResponse::Unhandled;
        res.status = 401;
        res.set_header("WWW-Authenticate", "Bearer");
        res.set_content(
            json_text({{"error", "this " + what_ + " needs 'Authorization: Bearer TOKEN' (" +
                                     token_flag_ + ")"}}) +
                "\n",
            "application/json");
        return httplib::Server::HandlerResponse::Handled;
      });
}

bool DashboardAccess::allows(const httplib::Request& req, Route route) const {
  if (token_.empty() || route == Route::kOpen) return true;
  if (constant_time_equal(req.get_header_value("Authorization"), "Bearer " + token_)) return true;
  if (route != Route::kReadOnly || req.method != "GET") return false;
  // The token once in the address bar (the page then takes it out), to set the cookie.
  if (token_param(req)) return constant_time_equal(req.get_param_value("token"), token_);
  return constant_time_equal(cookie_value(req.get_header_value("Cookie"), cookie_name_), cookie_);
}

std::string DashboardAccess::set_cookie(const httplib::Request& req) const {
  if (token_.empty() || !token_param(req)) return "";
  return cookie_name_ + "=" + cookie_ + "; Path=/; HttpOnly; SameSite=Strict";
}

std::optional<std::string> token_needed_beyond_loopback(
    const std::string& flag, const std::string& given, const ListenAddress& at,
    const std::string& token, const std::string& token_flag, const std::string& token_env) {
  if (at.is_loopback() || !token.empty()) return std::nullopt;
  return flag + ": '" + given + "' is reachable beyond this machine; give " + token_flag +
         " TOKEN (or " + token_env +
         ") so that it requires 'Authorization: Bearer TOKEN', or bind it to 127.0.0.1";
}

}  // namespace stampede
