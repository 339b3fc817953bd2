#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rate.hpp"
#include "recording/arrival_stats.hpp"
#include "recording/provider_results.hpp"
#include "scenario.hpp"

namespace stampede {

// The tenants a live event names: the busiest, not all of them (a storm may bring millions).
inline constexpr std::size_t kLiveTopTenants = 10;

struct LiveTenant {
  std::string tenant;
  std::int64_t requests = 0;
  std::int64_t rate_limited = 0;  // answered 429
};

// What the provider saw up to one moment: what an event of GET /admin/live is made from.
struct LiveSnapshot {
  std::int64_t clock_ns = 0;
  double time_scale = 1;
  ArrivalStats counts{1'000'000'000};   // the counts without the tenants (merge_counts)
  std::vector<LiveTenant> top_tenants;  // the busiest first, at most kLiveTopTenants
  std::int64_t tenants_seen = 0;
  std::int64_t items_seen = 0;  // the items and clients the counting rules hold
  Lockstep lockstep;
  std::optional<Rate> allowance;
  std::optional<Rate> capacity;
  std::vector<OutageWindow> outages;  // the scenario's and those started by the admin API
  std::size_t streams = 0;            // live streams open when it was taken
  bool proxy = false;                 // --upstream: what it admits is forwarded (counts.upstream())
};

// The snapshot's declared limits and outages, what its charts and its pace are read against.
ProviderConfig declared_limits(const LiveSnapshot& s);

// The busiest tenants (by arrivals, ties by name), at most kLiveTopTenants.
std::vector<LiveTenant> top_tenants(const ArrivalStats& stats);

// A live snapshot copies the tenants a slice at a time, each slice under its recorder's lock,
// so that the data plane waits for at most one slice however many tenants there are.
inline constexpr std::size_t kLiveTenantSlice = 1024;

// Appends to out, in name order, up to max of stats' tenants after the name `after` (from the
// first when none), and sets `after` to the last one appended; whether none is left after it.
// A tenant added between two slices is copied if it comes after the slices taken already.
bool copy_tenant_slice(const ArrivalStats& stats, std::optional<std::string>& after,
                       std::size_t max, std::vector<LiveTenant>& out);

// Several recorders' tenants, each list in name order (copy_tenant_slice's), summed by name:
// the busiest as top_tenants has them, and how many names there are.
struct LiveTenants {
  std::vector<LiveTenant> top;
  std::int64_t seen = 0;
};
LiveTenants sum_tenants(const std::vector<std::vector<LiveTenant>>& sorted_lists);

// The first bin whose counts in `now` differ from `before`'s (after a reset, 0): an event
// sends the bins from there on, and the reader replaces its own from there on.
std::size_t first_changed_bin(const BinnedCounts& before, const BinnedCounts& now);
std::size_t first_changed_bin(const ArrivalStats& before, const ArrivalStats& now);

// One event's JSON (docs/ADMIN_API.md, GET /admin/live): the snapshot's totals and the bins
// from from_bin to the end; in proxy mode, what the upstream answered. seq numbers the events
// of a stream.
nlohmann::json live_event(const LiveSnapshot& s, std::size_t from_bin, std::uint64_t seq);

}  // namespace stampede
