#include "cli/fleet_dashboard.hpp"

#include <chrono>
#include <iostream>
#include <utility>

#include "bounded_server.hpp"
#include "html_report.hpp"
#include "live_page.hpp"
#include "report_download.hpp"

namespace stampede {
namespace {

// As the provider's live streams: a send buffer of half a padded event
// (BoundedServer::answer_event_stream), and a wait for the next event a slice at a time so
// that stop() is seen.
constexpr int kStreamSendBuffer = 32 * 1024;
constexpr auto kStreamWait = std::chrono::milliseconds(250);

}  // namespace

FleetDashboard::FleetDashboard(std::string title, bool clients_view, std::string token)
    : title_(std::move(title)),
      clients_view_(clients_view),
      access_(std::move(token), "dashboard", "--dashboard-token"),
      server_(std::make_unique<BoundedServer>(ConnectionLimits{})) {}

FleetDashboard::~FleetDashboard() {
  stop();
}

std::optional<std::string> FleetDashboard::start(const ListenAddress& at) {
  auto& svr = *server_;
  svr.set_keep_alive_timeout(2);
  svr.Get("/dashboard", [this](const httplib::Request& req, httplib::Response& res) {
    if (auto cookie = access_.set_cookie(req); !cookie.empty())
      res.set_header("Set-Cookie", cookie);
    res.set_header("Cache-Control", "no-store");
    res.set_content(render_live_page({title_, "/live", clients_view_, "/dashboard/report"}),
                    "text/html; charset=utf-8");
  });
  svr.Get("/live", [this](const httplib::Request&, httplib::Response& res) { send_stream(res); });
  svr.Get("/dashboard/report",
          [this](const httplib::Request&, httplib::Response& res) { send_report(res); });
  const auto bound = svr.bind(at);
  if (!bound) return bound.error();
  // Every route reads: the page, its stream and its save, all opened by the cookie too.
  access_.guard(svr, *bound,
                [](const httplib::Request&) { return DashboardAccess::Route::kReadOnly; });
  url_ = at.url(*bound) + "/dashboard";
  if (!server_->serve_in_background()) return "the dashboard's server stopped at once";
  return std::nullopt;
}

void FleetDashboard::publish(std::string message) {
  {
    const std::lock_guard lock(mu_);
    latest_ = std::make_shared<const std::string>(std::move(message));
    ++seq_;
  }
  cv_.notify_all();
}

void FleetDashboard::set_results_source(ResultsSource source) {
  const std::lock_guard lock(results_mu_);
  results_ = std::move(source);
}

void FleetDashboard::send_report(httplib::Response& res) {
  const std::lock_guard lock(results_mu_);
  if (!results_) {
    res.status = 503;
    res.set_header("Retry-After", "1");
    res.set_content("the run has no results to save yet\n", "text/plain");
    return;
  }
  const auto results = results_();
  send_report_download(res, results, results ? default_label(*results) : "",
                       clients_view_ ? "loadgen-run-report.html" : "loadgen-exec-report.html");
}

void FleetDashboard::stop() {
  {
    const std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  server_->stop_serving();
}

BoundedServer::StreamStep FleetDashboard::newer_than(std::uint64_t& seq) {
  using Kind = BoundedServer::StreamStep::Kind;
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, kStreamWait, [&] { return stopping_ || seq_ > seq; });
  if (stopping_) return {Kind::kEnd, nullptr};
  if (seq_ <= seq) return {Kind::kNothingYet, nullptr};
  seq = seq_;
  return {Kind::kEvent, latest_};
}

void FleetDashboard::send_stream(httplib::Response& res) {
  {
    const std::lock_guard lock(mu_);
    if (streams_ >= kMaxStreams || stopping_) {
      res.status = 503;
      res.set_header("Retry-After", "5");
      res.set_content(std::to_string(kMaxStreams) + " dashboards are open already\n", "text/plain");
      return;
    }
    ++streams_;
  }
  // The last event the stream sent, and its slot, given back when the answer is done with it.
  auto sent = std::shared_ptr<std::uint64_t>(new std::uint64_t(0), [this](std::uint64_t* p) {
    delete p;
    const std::lock_guard lock(mu_);
    --streams_;
  });
  BoundedServer::answer_event_stream(res, kStreamSendBuffer,
                                     [this, sent] { return newer_than(*sent); });
}

std::optional<std::string> serve_dashboard(const std::optional<ListenAddress>& at,
                                           const std::string& token, const std::string& title,
                                           bool clients_view,
                                           std::optional<FleetDashboard>& dashboard) {
  if (!at) return std::nullopt;
  dashboard.emplace(title, clients_view, token);
  if (auto e = dashboard->start(*at)) return "--dashboard: " + *e;
  std::cerr << "loadgen: dashboard on " << dashboard->url() << std::endl;
  return std::nullopt;
}

}  // namespace stampede
