#include "recording/live_event.hpp"

#include <algorithm>
#include <queue>
#include <utility>

#include "live_fields.hpp"
#include "results.hpp"

namespace stampede {

using json = nlohmann::json;

namespace {

// {"labels": [...], "counts": [[per label] per bin from from_bin]}: a bin is drawn only once
// complete or replaced, so the reader needs no more than the changed ones.
json bins_from(const BinnedCounts& h, const std::vector<std::string>& labels,
               std::size_t from_bin) {
  json rows = json::array();
  for (std::size_t b = from_bin; b < h.bins(); ++b) {
    json row = json::array();
    for (std::size_t l = 0; l < h.labels(); ++l) row.push_back(h.at(b, l));
    rows.push_back(std::move(row));
  }
  return {{"labels", labels}, {"counts", std::move(rows)}};
}

json tenants_json(const std::vector<LiveTenant>& tenants) {
  json out = json::array();
  for (const auto& t : tenants) {
    const double share = t.requests > 0
                             ? static_cast<double>(t.rate_limited) / static_cast<double>(t.requests)
                             : 0.0;
    out.push_back({{"tenant", t.tenant},
                   {"requests", t.requests},
                   {"429", t.rate_limited},
                   {"share_429", share}});
  }
  return out;
}

// Proxy mode: the arrivals it admitted, each forwarded, and what the upstream made of them
// (ArrivalStats::upstream_json); null without an upstream.
json upstream_json(const LiveSnapshot& s, std::int64_t admitted) {
  if (!s.proxy) return nullptr;
  json out = s.counts.upstream_json();
  out["forwarded"] = admitted;
  return out;
}

}  // namespace

namespace {

// The busiest kLiveTopTenants of all, busiest first, ties by name.
std::vector<LiveTenant> busiest(std::vector<LiveTenant> all) {
  const auto busier = [](const LiveTenant& a, const LiveTenant& b) {
    return a.requests != b.requests ? a.requests > b.requests : a.tenant < b.tenant;
  };
  const auto keep = std::min(all.size(), kLiveTopTenants);
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                    busier);
  all.resize(keep);
  return all;
}

LiveTenant live_tenant(const std::string& name, const ArrivalStats::Totals& t) {
  return {name, t.requests, t.by_outcome[static_cast<std::size_t>(Outcome::kRateLimited)]};
}

}  // namespace

ProviderConfig declared_limits(const LiveSnapshot& s) {
  ProviderConfig limits;
  limits.allowance = s.allowance;
  limits.capacity = s.capacity;
  limits.outages = s.outages;
  return limits;
}

std::vector<LiveTenant> top_tenants(const ArrivalStats& stats) {
  std::vector<LiveTenant> all;
  all.reserve(stats.tenants().size());
  for (const auto& [name, t] : stats.tenants()) all.push_back(live_tenant(name, t));
  return busiest(std::move(all));
}

bool copy_tenant_slice(const ArrivalStats& stats, std::optional<std::string>& after,
                       std::size_t max, std::vector<LiveTenant>& out) {
  const auto& tenants = stats.tenants();
  auto it = after ? tenants.upper_bound(*after) : tenants.begin();
  for (std::size_t n = 0; n < max && it != tenants.end(); ++n, ++it) {
    out.push_back(live_tenant(it->first, it->second));
  }
  if (!out.empty()) after = out.back().tenant;
  return it == tenants.end();
}

LiveTenants sum_tenants(const std::vector<std::vector<LiveTenant>>& sorted_lists) {
  // A k-way merge by name: the lists' next entries in a heap, the smallest name on top.
  using Head = std::pair<const LiveTenant*, std::size_t>;  // the entry, its list
  const auto later = [](const Head& a, const Head& b) { return a.first->tenant > b.first->tenant; };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
  std::vector<std::size_t> next(sorted_lists.size(), 0);
  const auto advance = [&](std::size_t list) {
    if (next[list] < sorted_lists[list].size())
      heads.emplace(&sorted_lists[list][next[list]++], list);
  };
  for (std::size_t list = 0; list < sorted_lists.size(); ++list) advance(list);
  std::vector<LiveTenant> summed;
  while (!heads.empty()) {
    const auto [entry, list] = heads.top();
    heads.pop();
    if (summed.empty() || summed.back().tenant != entry->tenant) {
      summed.push_back({entry->tenant, 0, 0});
    }
    summed.back().requests += entry->requests;
    summed.back().rate_limited += entry->rate_limited;
    advance(list);
  }
  LiveTenants out;
  out.seen = static_cast<std::int64_t>(summed.size());
  out.top = busiest(std::move(summed));
  return out;
}

std::size_t first_changed_bin(const BinnedCounts& before, const BinnedCounts& now) {
  const std::size_t common = std::min(before.bins(), now.bins());
  if (before.labels() != now.labels() || before.bin_ns() != now.bin_ns()) return 0;
  for (std::size_t b = 0; b < common; ++b) {
    for (std::size_t l = 0; l < now.labels(); ++l) {
      if (before.at(b, l) != now.at(b, l)) return b;
    }
  }
  return common;
}

std::size_t first_changed_bin(const ArrivalStats& before, const ArrivalStats& now) {
  return std::min(first_changed_bin(before.by_outcome(), now.by_outcome()),
                  first_changed_bin(before.by_send(), now.by_send()));
}

json live_event(const LiveSnapshot& s, std::size_t from_bin, std::uint64_t seq) {
  const auto& totals = s.counts.totals();
  const std::int64_t admitted = totals.by_outcome[static_cast<std::size_t>(Outcome::kOk)];
  return {
      {"seq", seq},
      {"clock_ns", s.clock_ns},
      {"time_scale", s.time_scale},
      {"bin_ms", s.counts.bin_ns() / kNsPerMs},
      {"from_bin", from_bin},
      {"arrivals_by_outcome", bins_from(s.counts.by_outcome(), outcome_labels(), from_bin)},
      {"arrivals_by_send", bins_from(s.counts.by_send(), send_labels(), from_bin)},
      {"arrivals", ArrivalStats::tenant_json(totals)},
      {"requests", totals.requests},
      {"admitted", admitted},
      {"refused", totals.requests - admitted},
      {"pace", live_pace_json(live_pace(s.counts.by_outcome(), s.clock_ns, declared_limits(s)))},
      {"tenants_seen", s.tenants_seen},
      {"items_seen", s.items_seen},
      {"top_tenants", tenants_json(s.top_tenants)},
      {"lockstep", lockstep_json(s.lockstep)},
      {"allowance", live_rate_json(s.allowance)},
      {"capacity", live_rate_json(s.capacity)},
      {"outages", live_outages_json(s.outages)},
      {"upstream", upstream_json(s, admitted)},
      {"streams", s.streams}};
}

}  // namespace stampede
