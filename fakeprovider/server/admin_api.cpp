#include "server/admin_api.hpp"

#include <httplib.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "bounded_server.hpp"
#include "duration.hpp"
#include "json_text.hpp"
#include "live_page.hpp"
#include "report_download.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// Admin requests carry no body worth reading (POST bodies are ignored): a declared one beyond
// this is a 413 (and ConnectionLimits cuts any request, chunked or not, at 80 KiB).
constexpr std::size_t kMaxBodyBytes = 64 * 1024;
// Stats documents and metrics pages sent at once, and how long another waits for its turn
// before a 503.
constexpr std::ptrdiff_t kDocumentsAtOnce = 2;
constexpr auto kDocumentWait = std::chrono::seconds(5);
// A live stream's send buffer: half a padded event (BoundedServer::answer_event_stream). A
// reader that stops reading fills it and its own within seconds, and the next event's write
// times out (5 s): the stream is dropped.
constexpr int kLiveSendBuffer = 32 * 1024;
// How long a live stream waits for the next event before it looks whether the server stops.
constexpr std::int64_t kLiveWaitNs = 250'000'000;

// The routes a dashboard's page and stream use: read-only, so the dashboard's cookie opens
// them (DashboardAccess); /healthz is open to all.
DashboardAccess::Route route_of(const httplib::Request& req) {
  if (req.path == "/healthz") return DashboardAccess::Route::kOpen;
  const bool read_only =
      req.method == "GET" &&
      (req.path == "/dashboard" || req.path == "/dashboard/report" || req.path == "/admin/live");
  return read_only ? DashboardAccess::Route::kReadOnly : DashboardAccess::Route::kAdmin;
}

void json_reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(json_text(body) + "\n", "application/json");
}

// reset's ?at=: when t = 0 is to be, a Unix time in seconds (loadgen's --start-at), so that
// shards can agree on it before any of them sends. Null if not a number near now.
std::optional<std::int64_t> parse_reset_at(const std::string& text, std::int64_t now_wall_ns) {
  char* end = nullptr;
  const double s = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(s)) return std::nullopt;
  const double ns = s * 1e9;
  constexpr double kDayNs = 86'400e9;
  if (std::abs(ns - static_cast<double>(now_wall_ns)) > kDayNs) return std::nullopt;
  return static_cast<std::int64_t>(ns);
}

void error_reply(httplib::Response& res, int status, const std::string& message) {
  json_reply(res, status, {{"error", message}});
}

// The POST routes take no body. Given a content reader, cpp-httplib 0.11.4 leaves the body to
// the handler; without one it waits out its read timeout (5 s) for the body of a bodiless POST
// that declares no length, which is what `curl -X POST` sends.
using PostHandler = std::function<void(const httplib::Request&, httplib::Response&)>;
httplib::Server::HandlerWithContentReader skipping_body(PostHandler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& read) {
    // A body too long (or cut, or malformed) is refused, not half read and then obeyed.
    if ((req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) &&
        !read([](const char*, std::size_t) { return true; })) {
      return error_reply(res, res.status == 413 ? 413 : 400,
                         "the request body is too long or malformed: admin requests need none "
                         "(one of at most " +
                             std::to_string(kMaxBodyBytes / 1024) + " KiB is read and ignored)");
    }
    handler(req, res);
  };
}

// A stats document with its turn: the turn is given back when the answer is done with it.
struct HeldDocument {
  explicit HeldDocument(std::counting_semaphore<>& held_turns) : turns(held_turns) {}
  ~HeldDocument() {
    doc.reset();
    turns.release();
  }
  HeldDocument(const HeldDocument&) = delete;
  HeldDocument& operator=(const HeldDocument&) = delete;
  std::counting_semaphore<>& turns;
  std::unique_ptr<StatsDocument> doc;
};

}  // namespace

AdminApi::AdminApi(const AdminConfig& config, LockedProvider& provider)
    : config_(config),
      provider_(provider),
      access_(config.token, "admin API", "--admin-token"),
      server_(std::make_unique<BoundedServer>(ConnectionLimits{})),
      documents_(kDocumentsAtOnce),
      feed_([&provider] { return provider.live_snapshot(); }) {}

AdminApi::~AdminApi() {
  stop();
}

void AdminApi::add_routes() {
  auto& svr = *server_;
  svr.set_tcp_nodelay(true);
  // Idle keep-alive connections cost this server a polling thread each: keep them short.
  svr.set_keep_alive_timeout(2);
  svr.set_payload_max_length(kMaxBodyBytes);
  access_.guard(svr, port_, route_of);

  svr.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  svr.Get("/admin/stats", [this](const httplib::Request&, httplib::Response& res) {
    send_document(res, StatsDocument::Format::kJson, "application/json");
  });
  // loadgen holds its scenario to it, and its --url to the data plane's port.
  svr.Get("/admin/settings", [this](const httplib::Request&, httplib::Response& res) {
    json_reply(res, 200, config_.settings);
  });
  svr.Get("/admin/results",
          [this](const httplib::Request&, httplib::Response& res) { send_results(res); });
  svr.Get("/admin/live",
          [this](const httplib::Request&, httplib::Response& res) { send_live(res); });
  svr.Get("/admin/live/stats", [this](const httplib::Request&, httplib::Response& res) {
    const auto u = feed_.usage();
    json_reply(res, 200,
               {{"streams", u.streams},
                {"max_streams", LiveFeed::kMaxStreams},
                {"kept_events", u.kept_events},
                {"max_kept_events", LiveFeed::kKept},
                {"kept_bytes", u.kept_bytes}});
  });
  svr.Get("/dashboard", [this](const httplib::Request& req, httplib::Response& res) {
    send_dashboard(req, res);
  });
  svr.Get("/dashboard/report",
          [this](const httplib::Request&, httplib::Response& res) { send_report(res); });
  svr.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    send_document(res, StatsDocument::Format::kPrometheus, "text/plain; version=0.0.4");
  });
  svr.Post("/admin/reset",
           skipping_body([this](const httplib::Request& req, httplib::Response& res) {
             std::optional<std::int64_t> at_wall_ns;
             if (req.has_param("at")) {
               at_wall_ns = parse_reset_at(req.get_param_value("at"), ScenarioClock::unix_ns());
               if (!at_wall_ns) {
                 return error_reply(res, 400,
                                    "?at= must be a Unix time in seconds within a day of now, e.g. "
                                    "?at=1767225600.5");
               }
             }
             provider_.reset(at_wall_ns);
             json_reply(res, 200, {{"reset", true}, {"clock_ns", provider_.clock().now_ns()}});
           }));
  svr.Post(
      "/admin/outage", skipping_body([this](const httplib::Request& req, httplib::Response& res) {
        const std::string for_text = req.has_param("for") ? req.get_param_value("for") : "";
        const auto duration = parse_duration_ns(for_text);
        if (!duration || *duration <= 0) {
          error_reply(
              res, 400,
              "for: " +
                  (duration ? "'" + for_text + "' must be longer than zero" : duration.error()) +
                  "; e.g. POST /admin/outage?for=30s&status=529");
          return;
        }
        const std::string status = req.has_param("status") ? req.get_param_value("status") : "503";
        // The scenario's outage syntax, so the statuses accepted are the same everywhere.
        const auto shape = parse_outage("0s-1s:" + status);
        if (!shape) {
          error_reply(res, 400,
                      "status: '" + status +
                          "' is not an outage status; expected 503, "
                          "529, 500 or reset");
          return;
        }
        const auto w = provider_.start_outage(*duration, shape->action);
        json_reply(
            res, 200,
            // Its nanoseconds exact above; the text is for a person, started mid-millisecond.
            {{"start_ns", w.start_ns},
             {"end_ns", w.end_ns},
             {"outage", format_outage(w, format_duration_rounded)}});
      }));
}

// Sent a piece at a time, never whole in memory; the length is known first.
void AdminApi::send_document(httplib::Response& res, StatsDocument::Format format,
                             const char* content_type) {
  if (!documents_.try_acquire_for(kDocumentWait)) {
    res.set_header("Retry-After", "1");
    return error_reply(res, 503, "too many stats documents are being sent at once; retry");
  }
  auto held = std::make_shared<HeldDocument>(documents_);
  held->doc = provider_.stats_document();
  res.set_content_provider(
      held->doc->size(format), content_type,
      [held, format](std::size_t offset, std::size_t, httplib::DataSink& sink) {
        return offset == 0 &&
               held->doc->write(
                   [&](const std::string& p) { return sink.write(p.data(), p.size()); }, format);
      });
}

// A results document is bounded like a run's (its histograms by the run's duration, nothing by
// its traffic or tenants) and built whole, as run builds its own; it takes a turn among the
// stats documents, so no more of them are in memory at once.
void AdminApi::send_results(httplib::Response& res) {
  if (!documents_.try_acquire_for(kDocumentWait)) {
    res.set_header("Retry-After", "1");
    return error_reply(res, 503, "too many stats documents are being sent at once; retry");
  }
  const HeldDocument turn(documents_);  // given back when the reply is made
  json_reply(res, 200, provider_.results_json());
}

// The page that draws /admin/live. Given ?token= (checked already), it sets the cookie the
// page's stream, its save and its reloads are let in by: the token is in the address bar once.
void AdminApi::send_dashboard(const httplib::Request& req, httplib::Response& res) const {
  if (auto cookie = access_.set_cookie(req); !cookie.empty()) res.set_header("Set-Cookie", cookie);
  res.set_header("Cache-Control", "no-store");
  res.set_content(render_live_page({"fakeprovider (admin port " + std::to_string(port_) + ")",
                                    "/admin/live", false, "/dashboard/report"}),
                  "text/html; charset=utf-8");
}

// The dashboard's "save": the report `loadgen report` makes of the provider's own results
// document, as a file to keep. It takes a turn among the stats documents, as /admin/results.
void AdminApi::send_report(httplib::Response& res) {
  if (!documents_.try_acquire_for(kDocumentWait)) {
    res.set_header("Retry-After", "1");
    return error_reply(res, 503, "too many stats documents are being sent at once; retry");
  }
  const HeldDocument turn(documents_);
  send_report_download(res, results_from_json(provider_.results_json()), "fakeprovider",
                       "fakeprovider-report.html");
}

// One stream's place in the feed; its slot is given back when the answer is done with it.
struct LiveStream {
  LiveStream(LiveFeed& live_feed, LiveFeed::Subscription s)
      : feed(live_feed),
        first(std::make_shared<const std::string>(std::move(s.first))),
        next_seq(s.next_seq) {}
  ~LiveStream() { feed.unsubscribe(); }
  LiveStream(const LiveStream&) = delete;
  LiveStream& operator=(const LiveStream&) = delete;

  // The first event, then each the feed makes; the end when the feed stops or the stream fell
  // further behind than the events it keeps.
  BoundedServer::StreamStep next() {
    using Kind = BoundedServer::StreamStep::Kind;
    if (first) return {Kind::kEvent, std::exchange(first, nullptr)};
    std::shared_ptr<const std::string> event;
    switch (feed.next(next_seq, event, kLiveWaitNs)) {
      case LiveFeed::Next::kEvent:
        ++next_seq;
        return {Kind::kEvent, std::move(event)};
      case LiveFeed::Next::kNothingYet:
        return {Kind::kNothingYet, nullptr};
      case LiveFeed::Next::kBehind:
      case LiveFeed::Next::kStopped:
        break;
    }
    return {Kind::kEnd, nullptr};
  }

  LiveFeed& feed;
  std::shared_ptr<const std::string> first;  // sent, then dropped
  std::uint64_t next_seq;
};

// Server-sent events: the first event holds every bin so far, each later one the bins that
// changed.
void AdminApi::send_live(httplib::Response& res) {
  auto subscription = feed_.subscribe();
  if (!subscription) {
    res.set_header("Retry-After", "5");
    return error_reply(res, 503,
                       std::to_string(LiveFeed::kMaxStreams) +
                           " live streams are open already; close one or retry later");
  }
  auto stream = std::make_shared<LiveStream>(feed_, std::move(*subscription));
  BoundedServer::answer_event_stream(res, kLiveSendBuffer, [stream] { return stream->next(); });
}

std::optional<std::string> AdminApi::start() {
  const auto bound = server_->bind(config_.listen);
  if (!bound) return "--admin-listen: " + bound.error();
  port_ = *bound;
  add_routes();  // the port names the dashboard's cookie
  feed_.start();
  if (!server_->serve_in_background()) return "--admin-listen: the admin server stopped at once";
  return std::nullopt;
}

void AdminApi::serve_connection(int fd) {
  server_->serve_connection(fd);
}

void AdminApi::stop() {
  feed_.stop();
  server_->stop_serving();
}

}  // namespace stampede
