#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "model/provider_policy.hpp"
#include "model/send_attribution.hpp"
#include "outcome.hpp"
#include "recording/arrival_log.hpp"
#include "results.hpp"

namespace stampede {

// The provider's counters: arrivals per bin by outcome and by send number, totals (by outcome
// and by the layer that answered: which quota a 429 was for), and the same per tenant; how the
// arrivals' send numbers were found. Bounded by the run's duration and its tenants, never by its
// traffic (nor by a send number). Pure: the caller stamps the time and serialises calls.
class ArrivalStats {
 public:
  struct Totals {
    std::int64_t requests = 0;
    std::array<std::int64_t, kOutcomeCount> by_outcome{};
    std::array<std::int64_t, kDecisionReasonCount> by_reason{};
    Totals& operator+=(const Totals& other);
  };
  // Arrivals by how their send was numbered: attributed (by rule) or why not.
  struct SendCounts {
    std::array<std::int64_t, kSendStatusCount> by_status{};
    std::array<std::int64_t, kSendRuleCount> attributed_by_rule{};
  };

  // Proxy mode: what the upstream made of the arrivals forwarded to it, apart from the
  // provider's own outcomes: its 429s, its 5xx, and no answer at all (refused, reset, silent).
  enum class Upstream { k429, k5xx, kError };
  static constexpr std::size_t kUpstreamCounts = 3;
  using UpstreamCounts = std::array<std::int64_t, kUpstreamCounts>;

  explicit ArrivalStats(std::int64_t bin_ns);

  // send: which send of its item it is, if known: an unattributed arrival counts by outcome,
  // not by send. reason: the layer that answered. model: its row of provider.models (a listed
  // model's name, or "other": model_row_name), empty when the provider counts no models.
  void record(std::int64_t t_ns, std::string_view tenant, Outcome outcome,
              const SendAttribution& send, DecisionReason reason = DecisionReason::kServed,
              std::string_view model = {});
  // upstream: the upstream's status, or kUpstreamFailed / kUpstreamTimedOut (arrival_log.hpp);
  // a status other than 429 or 5xx counts nothing.
  // kStreamBroken counts a broken LLM stream.
  void record_upstream(int upstream);
  // Adds another's counts (same bin): each server thread records alone, the stats add them.
  void merge(const ArrivalStats& other);
  // The same without the tenants: what a stats document's head needs.
  void merge_counts(const ArrivalStats& other);

  std::int64_t bin_ns() const { return bins_.provider_by_outcome.bin_ns(); }
  const Totals& totals() const { return totals_; }
  const SendCounts& sends() const { return sends_; }
  const UpstreamCounts& upstream() const { return upstream_; }
  std::int64_t streams_broken() const { return streams_broken_; }
  // {"upstream_429": N, "upstream_5xx": N, "upstream_error": N}
  nlohmann::json upstream_json() const;
  // {"small": {"requests": N, "totals": {...}, "reasons": {...}}, "other": ...}; null without
  // provider.models.
  nlohmann::json models_json() const;
  const std::map<std::string, Totals, std::less<>>& tenants() const { return tenants_; }
  // By provider.models' rows: bounded by the models listed, plus "other".
  const std::map<std::string, Totals, std::less<>>& models() const { return models_; }
  const BinnedCounts& by_outcome() const { return bins_.provider_by_outcome; }
  const BinnedCounts& by_send() const { return bins_.provider_by_send; }

  // The GET /admin/stats document (docs/ADMIN_API.md), which `loadgen run` reads; without
  // tenants, every field but "tenants" (StatsDocument adds them one at a time).
  nlohmann::json to_json(std::int64_t clock_ns, double time_scale, bool with_tenants = true) const;
  // One tenant's entry in "tenants".
  static nlohmann::json tenant_json(const Totals& t);
  // The GET /metrics page, Prometheus text format 0.0.4; and its pieces, for a page written a
  // piece at a time (StatsDocument): before the tenants, one tenant's lines, after them.
  std::string to_prometheus(std::int64_t clock_ns) const;
  static std::string prometheus_before_tenants(const ArrivalStats& counts);
  static std::string prometheus_tenant(std::string_view tenant, const Totals& t);
  static std::string prometheus_after_tenants(std::int64_t clock_ns);

 private:
  // Only the provider_by_* histograms: record_arrival labels sends as the simulator does.
  Recording bins_;
  Totals totals_;
  SendCounts sends_;
  UpstreamCounts upstream_{};
  std::int64_t streams_broken_ = 0;
  std::map<std::string, Totals, std::less<>> tenants_;
  std::map<std::string, Totals, std::less<>> models_;
};

}  // namespace stampede
