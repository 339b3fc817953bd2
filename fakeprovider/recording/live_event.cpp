#include "recording/live_event.hpp"

#include <algorithm>

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

}  // namespace

std::vector<LiveTenant> top_tenants(const ArrivalStats& stats) {
  std::vector<LiveTenant> all;
  all.reserve(stats.tenants().size());
  const auto rate_limited = static_cast<std::size_t>(Outcome::kRateLimited);
  for (const auto& [name, t] : stats.tenants()) {
    all.push_back({name, t.requests, t.by_outcome[rate_limited]});
  }
  const auto busier = [](const LiveTenant& a, const LiveTenant& b) {
    return a.requests != b.requests ? a.requests > b.requests : a.tenant < b.tenant;
  };
  const auto keep = std::min(all.size(), kLiveTopTenants);
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                    busier);
  all.resize(keep);
  return all;
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
  return {{"seq", seq},
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
          {"tenants_seen", s.tenants_seen},
          {"items_seen", s.items_seen},
          {"top_tenants", tenants_json(s.top_tenants)},
          {"lockstep", lockstep_json(s.lockstep)},
          {"allowance", live_rate_json(s.allowance)},
          {"capacity", live_rate_json(s.capacity)},
          {"outages", live_outages_json(s.outages)},
          {"streams", s.streams}};
}

}  // namespace stampede
