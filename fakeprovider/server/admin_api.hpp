#pragma once

#include <memory>
#include <optional>
#include <semaphore>
#include <string>

#include <nlohmann/json.hpp>

#include "dashboard_access.hpp"
#include "listen_address.hpp"
#include "server/live_feed.hpp"
#include "server/locked_provider.hpp"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace stampede {

class BoundedServer;

struct AdminConfig {
  ListenAddress listen;
  std::string token;  // empty: no Authorization required (loopback only)
  // GET /admin/settings: what this provider enforces and where its data plane listens.
  nlohmann::json settings;
};

// The admin API on its own port (cpp-httplib), so polling it never disturbs the data plane's
// timing: stats, Prometheus metrics, reset, outages on demand, health, and the live stream
// the dashboard draws. docs/ADMIN_API.md.
// Whoever can reach it can cost it only so much (BoundedServer: every request within a
// deadline and a byte budget, 32 connections served at once; two stats documents or metrics
// pages in flight).
class AdminApi {
 public:
  AdminApi(const AdminConfig& config, LockedProvider& provider);
  ~AdminApi();
  AdminApi(const AdminApi&) = delete;
  AdminApi& operator=(const AdminApi&) = delete;

  // Binds and serves on a thread of its own; the error says what could not be done.
  std::optional<std::string> start();
  int port() const { return port_; }
  void stop();
  // One connection served with the same bounds and routes as an accepted one (the fuzzer
  // feeds it arbitrary bytes through a socketpair); after start(), before stop().
  void serve_connection(int fd);

 private:
  void add_routes();
  void send_document(httplib::Response& res, StatsDocument::Format format,
                     const char* content_type);
  void send_results(httplib::Response& res);
  void send_live(httplib::Response& res);
  void send_report(httplib::Response& res);
  void send_dashboard(const httplib::Request& req, httplib::Response& res) const;

  AdminConfig config_;
  LockedProvider& provider_;
  DashboardAccess access_;
  std::unique_ptr<BoundedServer> server_;
  // Stats documents and metrics pages being sent, each holding a copy of the tenants'
  // counters.
  std::counting_semaphore<> documents_;
  LiveFeed feed_;
  int port_ = 0;
};

}  // namespace stampede
