#include "locked_provider.hpp"

#include <algorithm>

namespace stampede {

LockedProvider::LockedProvider(const Options& options)
    : options_(options),
      clock_(options.time_scale),
      policy_(options.config),
      stats_(options.bin_ns) {}

LockedProvider::Admission LockedProvider::admit(std::int64_t seen_steady_ns,
                                                std::string_view tenant, int attempt,
                                                std::string_view client_id) {
  std::lock_guard lock(mu_);
  // Another thread may have decided a request it saw a moment later: the limiters need time
  // in order, and the log records the time they used.
  const std::int64_t t_ns = std::max(clock_.to_scenario_ns(seen_steady_ns), last_t_ns_);
  last_t_ns_ = t_ns;
  const Decision d = policy_.admit(t_ns, tenant);
  stats_.record(t_ns, tenant, d.outcome(), attempt);
  if (options_.keep_log) log_.record(t_ns, tenant, d.status, attempt, client_id);
  return {t_ns, d};
}

void LockedProvider::reset() {
  std::lock_guard lock(mu_);
  policy_ = ProviderPolicy(options_.config);
  stats_ = ArrivalStats(options_.bin_ns);
  log_.clear();
  last_t_ns_ = 0;
  clock_.restart();
}

OutageWindow LockedProvider::start_outage(std::int64_t duration_ns, OutageAction action) {
  std::lock_guard lock(mu_);
  const std::int64_t now_ns = clock_.now_ns();
  const OutageWindow w{now_ns, now_ns + duration_ns, action};
  policy_.add_outage(w);
  return w;
}

nlohmann::json LockedProvider::stats_json() const {
  std::unique_lock lock(mu_);
  const ArrivalStats copy = stats_;
  const std::int64_t clock_ns = clock_.now_ns();
  lock.unlock();
  return copy.to_json(clock_ns, clock_.time_scale());
}

std::string LockedProvider::metrics_text() const {
  std::unique_lock lock(mu_);
  const ArrivalStats copy = stats_;
  const std::int64_t clock_ns = clock_.now_ns();
  lock.unlock();
  return copy.to_prometheus(clock_ns);
}

std::string LockedProvider::arrivals_csv() const {
  std::lock_guard lock(mu_);
  return log_.to_csv();
}

std::int64_t LockedProvider::requests() const {
  std::lock_guard lock(mu_);
  return stats_.totals().requests;
}

}  // namespace stampede
