#include "live/client.hpp"

#include <algorithm>

namespace stampede {

LiveShared::LiveShared(const Scenario& s, const LiveRequest& r, const LiveOptions& o)
    : scenario(s),
      request(r),
      options(o),
      life(ItemLife::from(s.fleet)),
      schedule(s.fleet),
      clock(o.time_scale),
      workload_(s.fleet, o.shard.count) {
  timeout_ms = std::max<std::int64_t>(1, clock.wall_ns(s.fleet.timeout_ns) / 1'000'000);
  fixed_headers = r.headers;
  for (const auto& key : r.api_keys) tenant_headers.push_back(r.tenant_header + ": " + key);
  per_item_sender = s.fleet.workload == WorkloadKind::kTrace;
  // Every request declares its tokens where the provider of the same scenario reads them.
  if (s.fleet.tokens && !per_item_sender)
    fixed_headers.push_back(s.provider.token_header + ": " + std::to_string(*s.fleet.tokens));
}

std::optional<WorkItem> LiveShared::next_item(std::int64_t client, std::int64_t previous) {
  std::lock_guard lock(workload_mutex_);
  return workload_.next(client, previous);
}

void LiveShared::request_stop(StopReason reason, std::int64_t abort_at_wall_ns) {
  int none = static_cast<int>(StopReason::kNone);
  if (stop_reason.compare_exchange_strong(none, static_cast<int>(reason))) {
    abort_at_ns.store(abort_at_wall_ns);
  } else {
    // A second stop (a second Ctrl-C) may only shorten the grace.
    std::int64_t current = abort_at_ns.load();
    while (abort_at_wall_ns < current &&
           !abort_at_ns.compare_exchange_weak(current, abort_at_wall_ns)) {
    }
  }
  stop_requested.store(true);
}

}  // namespace stampede
