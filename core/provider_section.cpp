#include "provider_section.hpp"

#include <stdexcept>

#include "json_int.hpp"
#include "results.hpp"

namespace stampede {
namespace {

using nlohmann::json;

json replicas_json(const std::vector<ProviderReplica>& replicas) {
  json j = json::array();
  for (const auto& r : replicas) j.push_back({{"admin", r.admin}, {"requests", r.requests}});
  return j;
}

// The figures of a provider that was read.
void write_read(const ProviderSection& p, json& j) {
  j["requests"] = p.requests;
  j["bin_ns"] = p.bin_ns;
  j["time_scale"] = p.time_scale;
  if (!p.reasons.is_null()) j["reasons"] = p.reasons;
  if (!p.upstream.is_null()) j["upstream"] = p.upstream;
  if (!p.models.is_null()) j["models"] = p.models;
  if (p.connections_refused) j["connections_refused"] = *p.connections_refused;
  if (p.arrivals_by_outcome)
    j["arrivals_by_outcome"] = p.arrivals_by_outcome->to_json(outcome_labels());
  if (p.arrivals_by_send) j["arrivals_by_send"] = p.arrivals_by_send->to_json(send_labels());
}

void read_read(const json& j, ProviderSection& p) {
  p.requests = json_int64(j.at("requests"));
  p.bin_ns = json_int64(j.at("bin_ns"));
  p.time_scale = j.at("time_scale").get<double>();
  p.reasons = j.value("reasons", json());
  p.upstream = j.value("upstream", json());
  p.models = j.value("models", json());
  if (j.contains("connections_refused"))
    p.connections_refused = json_int64(j.at("connections_refused"));
  if (j.contains("arrivals_by_outcome"))
    p.arrivals_by_outcome = BinnedCounts::from_json(j.at("arrivals_by_outcome"), outcome_labels());
  if (j.contains("arrivals_by_send"))
    p.arrivals_by_send = BinnedCounts::from_json(j.at("arrivals_by_send"));
}

void read_merged(const json& j, ProviderSection& p) {
  for (const auto& r : j.at("replicas"))
    p.replicas.push_back({r.at("admin").get<std::string>(), json_int64(r.at("requests"))});
  p.requests = json_int64(j.at("requests"));
  if (j.contains("connections_refused"))
    p.connections_refused = json_int64(j.at("connections_refused"));
}

}  // namespace

json to_json(const ProviderSection& p) {
  json j = json::object();
  if (!p.replicas.empty()) {
    j = {{"replicas", replicas_json(p.replicas)}, {"requests", p.requests}};
    if (p.connections_refused) j["connections_refused"] = *p.connections_refused;
    return j;
  }
  j["admin"] = p.admin;
  if (p.error) {
    j["error"] = *p.error;
  } else {
    write_read(p, j);
  }
  if (!p.settings.is_null()) j["settings"] = p.settings;
  if (!p.results.is_null()) j["results"] = p.results;
  if (p.results_error) j["results_error"] = *p.results_error;
  return j;
}

Parsed<ProviderSection> provider_section_from_json(const json& j) {
  try {
    ProviderSection p;
    if (j.contains("replicas")) {
      read_merged(j, p);
      return Parsed<ProviderSection>::ok(std::move(p));
    }
    p.admin = j.at("admin").get<std::string>();
    if (j.contains("error")) {
      p.error = j.at("error").get<std::string>();
    } else {
      read_read(j, p);
    }
    p.settings = j.value("settings", json());
    p.results = j.value("results", json());
    if (j.contains("results_error")) p.results_error = j.at("results_error").get<std::string>();
    return Parsed<ProviderSection>::ok(std::move(p));
  } catch (const std::exception& e) {
    return Parsed<ProviderSection>::fail(std::string("provider: ") + e.what());
  }
}

}  // namespace stampede
