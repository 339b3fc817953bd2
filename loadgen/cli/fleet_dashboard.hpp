#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "bounded_server.hpp"
#include "dashboard_access.hpp"
#include "listen_address.hpp"
#include "parsed.hpp"
#include "results.hpp"

namespace stampede {

// loadgen run --dashboard HOST:PORT: the live dashboard's page (reports/live_page) and the
// stream of the fleet's events it draws, on a BoundedServer of its own thread. A thin shell:
// the run publishes each event, and every stream sends the newest one it has not sent. Each
// event holds every bin, so a stream that fell behind skips to the newest: nothing is queued
// for a slow reader, and one that stops reading is dropped by the write timeout.
class FleetDashboard {
 public:
  // Streams at once; more are refused (503).
  static constexpr std::size_t kMaxStreams = 8;

  // clients_view: the page of the answers the clients read (run), else the page of the
  // provider's arrivals (exec, whose events carry the provider's counts).
  // token: what 'Authorization: Bearer' (or the cookie /dashboard?token= sets) must carry;
  // empty: none (loopback only).
  FleetDashboard(std::string title, bool clients_view, std::string token);
  ~FleetDashboard();
  FleetDashboard(const FleetDashboard&) = delete;
  FleetDashboard& operator=(const FleetDashboard&) = delete;

  // Binds (a port in use is refused) and serves; the error, if any.
  std::optional<std::string> start(const ListenAddress& at);
  // http://HOST:PORT/dashboard
  const std::string& url() const { return url_; }
  // The next event, as the stream sends it (live_sse_message's form).
  void publish(std::string message);
  // The page's "save" (GET /dashboard/report): the results so far, or why there are none, as
  // the command makes them; called on the server's thread, one save at a time. Until one is
  // set, or once it is cleared (nullptr, before what it reads is gone), save answers 503.
  using ResultsSource = std::function<Parsed<Results>()>;
  void set_results_source(ResultsSource source);
  // Ends the streams (the pages say so, keeping their last picture) and the server.
  void stop();

 private:
  void send_stream(httplib::Response& res);
  void send_report(httplib::Response& res);
  // The newest event after seq (seq set to it), waiting a while for one; the end when stopping.
  BoundedServer::StreamStep newer_than(std::uint64_t& seq);

  std::string title_;
  bool clients_view_;
  std::string url_;
  DashboardAccess access_;
  std::unique_ptr<BoundedServer> server_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<const std::string> latest_;
  std::uint64_t seq_ = 0;
  std::size_t streams_ = 0;
  bool stopping_ = false;
  std::mutex results_mu_;  // held while the source is called, so clearing it waits for a save
  ResultsSource results_;
};

// --dashboard's server for a fleet command, before anything else (a port in use is refused
// before any load), its URL said on stderr, --quiet or not: it is what the flag asked for. The
// error, naming the flag, if it could not be served; nothing without an address.
std::optional<std::string> serve_dashboard(const std::optional<ListenAddress>& at,
                                           const std::string& token, const std::string& title,
                                           bool clients_view,
                                           std::optional<FleetDashboard>& dashboard);

}  // namespace stampede
