#include "recording/arrival_stats.hpp"

#include <sstream>

#include "duration.hpp"

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

json reasons_json(const ArrivalStats::Totals& t) {
  json by_reason = json::object();
  for (std::size_t i = 0; i < kDecisionReasonCount; ++i) {
    by_reason[std::string(to_string(static_cast<DecisionReason>(i)))] = t.by_reason[i];
  }
  return by_reason;
}

// Label values may hold anything a client put in a header.
std::string prometheus_label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
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

void ArrivalStats::record(std::int64_t t_ns, std::string_view tenant, Outcome outcome, int attempt,
                          DecisionReason reason) {
  bins_.record_arrival(t_ns, attempt, outcome);
  const auto o = static_cast<std::size_t>(outcome);
  const auto why = static_cast<std::size_t>(reason);
  auto it = tenants_.find(tenant);
  if (it == tenants_.end()) it = tenants_.emplace(std::string(tenant), Totals{}).first;
  for (Totals* t : {&totals_, &it->second}) {
    ++t->requests;
    ++t->by_outcome[o];
    ++t->by_reason[why];
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
              {"arrivals_by_send", by_send().to_json(send_labels())}};
  if (!with_tenants) return doc;
  json tenants = json::object();
  for (const auto& [key, t] : tenants_) tenants[key] = tenant_json(t);
  doc["tenants"] = std::move(tenants);
  return doc;
}

std::string ArrivalStats::to_prometheus(std::int64_t clock_ns) const {
  std::string out = prometheus_before_tenants(totals_);
  for (const auto& [key, t] : tenants_) out += prometheus_tenant(key, t);
  return out + prometheus_after_tenants(clock_ns);
}

std::string ArrivalStats::prometheus_before_tenants(const Totals& all) {
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
