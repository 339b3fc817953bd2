#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "live/request.hpp"
#include "parsed.hpp"

namespace stampede {

// What a fakeprovider's GET /admin/stats says about the arrivals it recorded.
struct ProviderStats {
  std::int64_t bin_ns = 0;
  double time_scale = 1;
  std::int64_t clock_ns = 0;  // the provider's scenario clock when it answered
  std::int64_t requests = 0;
  BinnedCounts by_outcome{1, 1};
  BinnedCounts by_send{1, 1};
  // Arrivals by the layer that answered (which quota each 429 was for), as the provider
  // names them; null from a provider that does not count them.
  nlohmann::json reasons;
  // Proxy mode's count of the upstream's own 429s, 5xx and failures ({"upstream_429": N,
  // ...}); null from a provider that does not count them.
  nlohmann::json upstream;
  // Arrivals by provider.models' rows ({"small": {"requests": N, ...}, "other": ...}); null
  // from a provider that counts none.
  nlohmann::json models;
  // Connections it turned away since the reset (at --max-connections, out of descriptors);
  // none from a provider that does not count them.
  std::optional<std::int64_t> connections_refused;
};

Parsed<ProviderStats> parse_provider_stats(const nlohmann::json& j);

// What a fakeprovider's GET /admin/settings says: what it enforces and where.
struct ProviderSettings {
  int port = 0;             // its data plane's
  std::string listen;       // "http://127.0.0.1:8080"
  nlohmann::json provider;  // the provider section of its scenario, as to_json prints it
  nlohmann::json document;  // the whole answer, for the results
};

Parsed<ProviderSettings> parse_provider_settings(const nlohmann::json& j);

// GET /admin/stats as a check of what --provider-admin names, before any load: the stats, or
// why not, and whether what answered is plainly not a fakeprovider's admin API (a 404, a page
// that is not JSON, a JSON document without the stats' fields). Not foreign when nothing
// answered or the token was refused: then it may be one, unreachable or locked.
struct StatsAnswer {
  std::optional<ProviderStats> stats;
  std::string error;
  bool foreign = false;
};

// A fakeprovider's admin API: reset before the run (both scenario clocks start together),
// stats after it.
class ProviderAdmin {
 public:
  ProviderAdmin(TargetUrl base, std::string token)
      : base_(std::move(base)), token_(std::move(token)) {}

  // POST /admin/reset, t = 0 now or at a Unix time (--start-at); the error, if any.
  std::optional<std::string> reset(std::optional<std::int64_t> at_epoch_ns = std::nullopt) const;
  Parsed<ProviderStats> stats() const;        // GET /admin/stats
  Parsed<nlohmann::json> stats_json() const;  // the same, as the provider wrote it
  StatsAnswer check_stats() const;
  // GET /admin/results: the provider's own results document (docs/RESULTS.md).
  Parsed<nlohmann::json> results_json() const;
  // GET /admin/settings; status: what it answered, 0 when nothing did.
  Parsed<ProviderSettings> settings(long* status) const;
  const TargetUrl& url() const { return base_; }

 private:
  // status: the HTTP status it answered, 0 when none came.
  Parsed<std::string> call(const char* method, const std::string& path,
                           long* status = nullptr) const;
  Parsed<nlohmann::json> get_json(const std::string& path, long* status = nullptr) const;

  TargetUrl base_;
  std::string token_;
};

// The one line for a foreign answer: "--provider-admin URL is not a fakeprovider admin API
// (GET /admin/stats answered 404)", the URL without its credentials.
std::string not_a_fakeprovider(const ProviderAdmin& admin, const StatsAnswer& answer);
// "provider admin unreachable: ERROR", and where fakeprovider's admin API listens.
std::string admin_unreachable(const std::string& error);

}  // namespace stampede
