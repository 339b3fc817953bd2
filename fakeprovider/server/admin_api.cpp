#include "server/admin_api.hpp"

#include <httplib.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "duration.hpp"
#include "json_text.hpp"
#include "scenario_clock.hpp"
#include "server/bounded_server.hpp"
#include "server/constant_time.hpp"

namespace stampede {
namespace {

// Admin requests carry no body worth reading (POST bodies are ignored): a declared one beyond
// this is a 413 (and ConnectionLimits cuts any request, chunked or not, at 80 KiB).
constexpr std::size_t kMaxBodyBytes = 64 * 1024;
// Stats documents and metrics pages sent at once, and how long another waits for its turn
// before a 503.
constexpr std::ptrdiff_t kDocumentsAtOnce = 2;
constexpr auto kDocumentWait = std::chrono::seconds(5);

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
      server_(std::make_unique<BoundedServer>(ConnectionLimits{})),
      documents_(kDocumentsAtOnce) {}

AdminApi::~AdminApi() {
  stop();
}

void AdminApi::add_routes() {
  auto& svr = *server_;
  svr.set_tcp_nodelay(true);
  // Idle keep-alive connections cost this server a polling thread each: keep them short.
  svr.set_keep_alive_timeout(2);
  svr.set_payload_max_length(kMaxBodyBytes);
  svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (config_.token.empty() || req.path == "/healthz") {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    if (constant_time_equal(req.get_header_value("Authorization"), "Bearer " + config_.token)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.set_header("WWW-Authenticate", "Bearer");
    error_reply(res, 401, "this admin API needs 'Authorization: Bearer TOKEN' (--admin-token)");
    return httplib::Server::HandlerResponse::Handled;
  });

  svr.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  svr.Get("/admin/stats", [this](const httplib::Request&, httplib::Response& res) {
    send_document(res, StatsDocument::Format::kJson, "application/json");
  });
  svr.Get("/admin/results",
          [this](const httplib::Request&, httplib::Response& res) { send_results(res); });
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
        json_reply(res, 200,
                   {{"start_ns", w.start_ns}, {"end_ns", w.end_ns}, {"outage", format_outage(w)}});
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

std::optional<std::string> AdminApi::start() {
  add_routes();
  const auto bound = server_->bind(config_.listen);
  if (!bound) return "--admin-listen: " + bound.error();
  port_ = *bound;
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  // stop() is a no-op until the server runs: wait for it, so a stop right away is not lost.
  while (!server_->is_running() && !listen_returned_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!server_->is_running()) return "--admin-listen: the admin server stopped at once";
  return std::nullopt;
}

void AdminApi::serve_connection(int fd) {
  server_->serve_connection(fd);
}

void AdminApi::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace stampede
