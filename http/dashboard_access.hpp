#pragma once

#include <functional>
#include <optional>
#include <string>

#include "listen_address.hpp"

namespace httplib {
class Server;
struct Request;
}  // namespace httplib

namespace stampede {

// Who may reach a port that serves a dashboard (fakeprovider's admin API, loadgen
// --dashboard). With a token, every route but the open ones needs 'Authorization: Bearer
// TOKEN'; the read-only routes a dashboard's page and stream use are opened too by the
// dashboard's cookie, which GET /dashboard?token=TOKEN sets. The cookie is a random value of
// this process's own, never the token: a browser sends it to every port of the host (and
// once sent it the data plane's upstream), so a cookie that leaks opens the page, its stream
// and its save, never a route that changes anything. Without a token, everything is open.
class DashboardAccess {
 public:
  enum class Route { kOpen, kReadOnly, kAdmin };
  using RouteOf = std::function<Route(const httplib::Request&)>;

  // what: the port's name in the 401's message; token_flag: the flag that sets the token.
  DashboardAccess(std::string token, std::string what, std::string token_flag);

  // Answers 401 (WWW-Authenticate: Bearer) to every request its route does not let in.
  // port: the bound port, which names the cookie.
  void guard(httplib::Server& server, int port, RouteOf route_of);
  bool allows(const httplib::Request& req, Route route) const;
  // The Set-Cookie header for an answer to GET /dashboard?token= (checked by allows()), or ""
  // when there is none to set.
  std::string set_cookie(const httplib::Request& req) const;

 private:
  std::string token_;
  std::string what_, token_flag_;
  std::string cookie_name_;
  std::string cookie_;  // the value: random, made once
};

// The rule of every port that answers admin or dashboard requests: bound beyond loopback, it
// needs a token. The error naming flag (given as `given`), the token's flag and variable, or
// none.
std::optional<std::string> token_needed_beyond_loopback(
    const std::string& flag, const std::string& given, const ListenAddress& at,
    const std::string& token, const std::string& token_flag, const std::string& token_env);

}  // namespace stampede
