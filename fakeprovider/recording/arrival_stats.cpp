#include "recording/arrival_stats.hpp"

#include <algorithm>
#include <sstream>

#include "duration.hpp"
#include "utf8.hpp"

namespace stampede {

using json = nlohmann::json;

namespace {

json totals_json(const ArrivalStats::Totals& t) {
  json by_outcome = json::object();
  for (std::size_t i = 0; i < kOutcomeCount; ++i) {
    by_outcome[std::string(kOutcomeNames[i])] = t.by_outcome[i];
  }
  return by_outcome;
}

constexpr std::array<const char*, ArrivalStats::kUpstreamCounts> kUpstreamNames = {
    "upstream_429", "upstream_5xx", "upstream_error"};

json reasons_json(const ArrivalStats::Totals& t) {
  json by_reason = json::object();
  for (std::size_t i = 0; i < kDecisionReasonCount; ++i) {
    by_reason[std::string(to_string(static_cast<DecisionReason>(i)))] = t.by_reason[i];
  }
  return by_reason;
}

json send_attribution_json(const ArrivalStats::SendCounts& s) {
  json by_rule = json::object();
  for (std::size_t i = 0; i < kSendRuleCount; ++i) {
    by_rule[std::string(to_string(static_cast<SendRule>(i)))] = s.attributed_by_rule[i];
  }
  json causes = json::object();
  std::int64_t unattributed = 0;
  for (std::size_t i = 1; i < kSendStatusCount; ++i) {
    causes[std::string(to_string(static_cast<SendStatus>(i)))] = s.by_status[i];
    unattributed += s.by_status[i];
  }
  return {{"attributed", s.by_status[0]},
          {"unattributed", unattributed},
          {"by_rule", by_rule},
          {"unattributed_by_cause", causes}};
}

// Label values may hold anything a client put in a header; Prometheus rejects a whole scrape
// over one label that is not UTF-8.
std::string prometheus_label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : valid_utf8(value)) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

ArrivalStats::Totals& ArrivalStats::Totals::operator+=(const Totals& other) {
  requests += other.requests;
  for (std::size_t i = 0; i < kOutcomeCount; ++i) by_outcome[i] += other.by_outcome[i];
  for (std::size_t i = 0; i < kDecisionReasonCount; ++i) by_reason[i] += other.by_reason[i];
  return *this;
}

ArrivalStats::ArrivalStats(std::int64_t bin_ns) {
  bins_.provider_by_outcome = BinnedCounts(bin_ns, kOutcomeCount);
  bins_.provider_by_send = BinnedCounts(bin_ns, kSendLabels);
}

void ArrivalStats::record(std::int64_t t_ns, std::string_view tenant, Outcome outcome,
                          const SendAttribution& send, DecisionReason reason,
                          std::string_view model) {
  ++sends_.by_status[static_cast<std::size_t>(send.status)];
  if (send.attributed()) {
    ++sends_.attributed_by_rule[static_cast<std::size_t>(send.rule)];
    // Any number past the last label is in it: 10^12 sizes nothing.
    bins_.record_arrival(t_ns, static_cast<int>(std::min<std::int64_t>(send.send, kSendLabels)),
                         outcome);
  } else {
    bins_.provider_by_outcome.add(t_ns, static_cast<std::size_t>(outcome));
  }
  const auto o = static_cast<std::size_t>(outcome);
  const auto why = static_cast<std::size_t>(reason);
  auto it = tenants_.find(tenant);
  if (it == tenants_.end()) it = tenants_.emplace(std::string(tenant), Totals{}).first;
  for (Totals* t : {&totals_, &it->second}) {
    ++t->requests;
    ++t->by_outcome[o];
    ++t->by_reason[why];
  }
  if (model.empty()) return;
  auto m = models_.find(model);
  if (m == models_.end()) m = models_.emplace(std::string(model), Totals{}).first;
  ++m->second.requests;
  ++m->second.by_outcome[o];
  ++m->second.by_reason[why];
}

json ArrivalStats::upstream_json() const {
  json out = json::object();
  for (std::size_t i = 0; i < upstream_.size(); ++i) out[kUpstreamNames[i]] = upstream_[i];
  return out;
}

json ArrivalStats::models_json() const {
  if (models_.empty()) return nullptr;
  json models = json::object();
  for (const auto& [key, t] : models_) models[key] = tenant_json(t);
  return models;
}

void ArrivalStats::record_upstream(int upstream) {
  if (upstream == 429) {
    ++upstream_[static_cast<std::size_t>(Upstream::k429)];
  } else if (upstream >= 500 && upstream < 600) {
    ++upstream_[static_cast<std::size_t>(Upstream::k5xx)];
  } else if (upstream == kUpstreamFailed || upstream == kUpstreamTimedOut) {
    ++upstream_[static_cast<std::size_t>(Upstream::kError)];
  } else if (upstream == kStreamBroken) {
    ++streams_broken_;
  }
}

void ArrivalStats::merge(const ArrivalStats& other) {
  merge_counts(other);
  for (const auto& [key, t] : other.tenants_) tenants_[key] += t;
}

void ArrivalStats::merge_counts(const ArrivalStats& other) {
  bins_.provider_by_outcome.merge(other.bins_.provider_by_outcome);
  bins_.provider_by_send.merge(other.bins_.provider_by_send);
  totals_ += other.totals_;
  for (std::size_t i = 0; i < kSendStatusCount; ++i)
    sends_.by_status[i] += other.sends_.by_status[i];
  for (std::size_t i = 0; i < kSendRuleCount; ++i)
    sends_.attributed_by_rule[i] += other.sends_.attributed_by_rule[i];
  for (std::size_t i = 0; i < kUpstreamCounts; ++i) upstream_[i] += other.upstream_[i];
  streams_broken_ += other.streams_broken_;
  for (const auto& [key, t] : other.models_) models_[key] += t;
}

json ArrivalStats::tenant_json(const Totals& t) {
  return {{"requests", t.requests}, {"totals", totals_json(t)}, {"reasons", reasons_json(t)}};
}

json ArrivalStats::to_json(std::int64_t clock_ns, double time_scale, bool with_tenants) const {
  json doc = {{"clock_ns", clock_ns},
              {"time_scale", time_scale},
              {"bin_ns", bin_ns()},
              {"requests", totals_.requests},
              {"totals", totals_json(totals_)},
              {"reasons", reasons_json(totals_)},
              {"arrivals_by_outcome", by_outcome().to_json(outcome_labels())},
              {"arrivals_by_send", by_send().to_json(send_labels())},
              {"send_attribution", send_attribution_json(sends_)},
              {"upstream", upstream_json()},
              {"streams_broken", streams_broken_}};
  // Only with provider.models, so other documents read as before.
  if (!models_.empty()) doc["models"] = models_json();
  if (!with_tenants) return doc;
  json tenants = json::object();
  for (const auto& [key, t] : tenants_) tenants[key] = tenant_json(t);
  doc["tenants"] = std::move(tenants);
  return doc;
}

std::string ArrivalStats::to_prometheus(std::int64_t clock_ns) const {
  std::string out = prometheus_before_tenants(*this);
  for (const auto& [key, t] : tenants_) out += prometheus_tenant(key, t);
  return out + prometheus_after_tenants(clock_ns);
}

std::string ArrivalStats::prometheus_before_tenants(const ArrivalStats& counts) {
  const Totals& all = counts.totals_;
  const SendCounts& sends = counts.sends_;
  const UpstreamCounts& upstream = counts.upstream_;
  std::ostringstream out;
  out << "# HELP fakeprovider_requests_total Arrivals by outcome since the start or the last "
         "reset.\n"
         "# TYPE fakeprovider_requests_total counter\n";
  for (std::size_t i = 0; i < kOutcomeCount; ++i) {
    out << "fakeprovider_requests_total{outcome=\"" << kOutcomeNames[i] << "\"} "
        << all.by_outcome[i] << "\n";
  }
  out << "# HELP fakeprovider_requests_by_reason_total Arrivals by the layer that answered "
         "(which quota a 429 was for) since the start or the last reset.\n"
         "# TYPE fakeprovider_requests_by_reason_total counter\n";
  for (std::size_t i = 0; i < kDecisionReasonCount; ++i) {
    out << "fakeprovider_requests_by_reason_total{reason=\""
        << to_string(static_cast<DecisionReason>(i)) << "\"} " << all.by_reason[i] << "\n";
  }
  out << "# HELP fakeprovider_send_attribution_total Arrivals by how their send number was "
         "found: the rule that numbered it, or why none did.\n"
         "# TYPE fakeprovider_send_attribution_total counter\n";
  for (std::size_t i = 0; i < kSendRuleCount; ++i) {
    out << "fakeprovider_send_attribution_total{status=\"attributed\",rule=\""
        << to_string(static_cast<SendRule>(i)) << "\"} " << sends.attributed_by_rule[i] << "\n";
  }
  for (std::size_t i = 1; i < kSendStatusCount; ++i) {
    out << "fakeprovider_send_attribution_total{status=\"" << to_string(static_cast<SendStatus>(i))
        << "\"} " << sends.by_status[i] << "\n";
  }
  out << "# HELP fakeprovider_upstream_answers_total Forwarded arrivals (proxy mode) the "
         "upstream answered 429 or 5xx, or did not answer (error).\n"
         "# TYPE fakeprovider_upstream_answers_total counter\n";
  for (std::size_t i = 0; i < kUpstreamCounts; ++i) {
    out << "fakeprovider_upstream_answers_total{kind=\"" << kUpstreamNames[i] << "\"} "
        << upstream[i] << "\n";
  }
  out << "# HELP fakeprovider_streams_broken_total Streamed LLM answers broken mid-way "
         "(--stream-errors), counted apart from the outcomes (they were served).\n"
         "# TYPE fakeprovider_streams_broken_total counter\n"
         "fakeprovider_streams_broken_total "
      << counts.streams_broken_ << "\n";
  out << "# HELP fakeprovider_tenant_requests_total Arrivals by tenant (the tenant header's "
         "value) and outcome.\n"
         "# TYPE fakeprovider_tenant_requests_total counter\n";
  return out.str();
}

std::string ArrivalStats::prometheus_tenant(std::string_view key, const Totals& t) {
  std::ostringstream out;
  const auto tenant = prometheus_label(key);
  for (std::size_t i = 0; i < kOutcomeCount; ++i) {
    if (t.by_outcome[i] == 0) continue;
    out << "fakeprovider_tenant_requests_total{tenant=\"" << tenant << "\",outcome=\""
        << kOutcomeNames[i] << "\"} " << t.by_outcome[i] << "\n";
  }
  return out.str();
}

std::string ArrivalStats::prometheus_after_tenants(std::int64_t clock_ns) {
  std::ostringstream out;
  out << "# HELP fakeprovider_scenario_seconds The scenario clock: seconds since the start or "
         "the last reset, in scenario time.\n"
         "# TYPE fakeprovider_scenario_seconds gauge\n"
      << "fakeprovider_scenario_seconds " << ns_to_s(clock_ns) << "\n";
  return out.str();
}

}  // namespace stampede
