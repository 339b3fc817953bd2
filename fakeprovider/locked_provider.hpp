#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "adaptive_mutex.hpp"
#include "arrival_log.hpp"
#include "arrival_stats.hpp"
#include "provider_policy.hpp"
#include "scenario_clock.hpp"

namespace stampede {

// The one place the server's threads meet: the scenario clock, the pure policy and the
// recording behind a single lock. Each arrival is decided and recorded under it, so the
// counters always match the answers given, and its time is made monotonic there: the
// limiters see time in order whichever thread saw the request first. The work under the lock
// is a few hundred nanoseconds, far below what the sockets cost.
class LockedProvider {
 public:
  struct Options {
    ProviderConfig config;
    double time_scale = 1.0;
    std::int64_t bin_ns = 1'000'000'000;
    bool keep_log = false;  // the raw arrival log, for --arrivals-out
  };
  struct Admission {
    std::int64_t t_ns;  // the arrival, in scenario time
    Decision decision;
  };

  explicit LockedProvider(const Options& options);

  // seen_steady_ns: when the server saw the request's bytes (a steady_clock reading). attempt:
  // the client's X-Attempt, 1 when absent; client_id: its X-Client-Id, may be empty.
  Admission admit(std::int64_t seen_steady_ns, std::string_view tenant, int attempt,
                  std::string_view client_id);

  // Zero the counters and the log, fresh limiters, drop outages started by the admin API,
  // and restart the scenario clock: t = 0 is now, so the scenario's outages replay.
  void reset();
  // An outage from now on, for duration_ns of scenario time.
  OutageWindow start_outage(std::int64_t duration_ns, OutageAction action);

  nlohmann::json stats_json() const;
  std::string metrics_text() const;
  std::string arrivals_csv() const;
  std::int64_t requests() const;

  const ScenarioClock& clock() const { return clock_; }
  const ProviderConfig& config() const { return options_.config; }

 private:
  const Options options_;
  mutable AdaptiveMutex mu_;
  ScenarioClock clock_;
  ProviderPolicy policy_;
  ArrivalStats stats_;
  ArrivalLog log_;
  std::int64_t last_t_ns_ = 0;
};

}  // namespace stampede
