#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "parsed.hpp"

namespace stampede {

// The results' "provider" section (docs/RESULTS.md): what `loadgen run` and `loadgen exec`
// read of the provider at the end of a fleet (--provider-admin), and what `loadgen merge`
// makes of the shards' reads. The provider's own figures it does not interpret (reasons,
// upstream, settings, per-item results) pass through as it sent them.

// One provider a merged fleet's shards read: its fullest read.
struct ProviderReplica {
  std::string admin;
  std::int64_t requests = 0;
};

struct ProviderSection {
  std::string admin;  // its admin URL, credentials removed; empty in a merged section
  // Why it could not be read; then only the admin URL, this, and what was read before.
  std::optional<std::string> error;
  std::int64_t requests = 0;
  std::int64_t bin_ns = 0;
  double time_scale = 1;
  nlohmann::json reasons;   // arrivals by the layer that answered; null: not counted
  nlohmann::json upstream;  // proxy mode's upstream counts; null: not counted
  nlohmann::json models;    // arrivals by provider.models' rows; null: not counted
  // Connections it turned away since the reset; none from a provider that does not count them
  // (a merged section: unless every replica counted them).
  std::optional<std::int64_t> connections_refused;
  // A shard's read of the whole fleet's arrivals, for `loadgen merge`.
  std::optional<BinnedCounts> arrivals_by_outcome;
  std::optional<BinnedCounts> arrivals_by_send;
  nlohmann::json settings;  // loadgen run: what GET /admin/settings said; null: not read
  nlohmann::json results;   // loadgen exec: its per-item record (provider_results); null: none
  std::optional<std::string> results_error;  // loadgen exec: why that record is missing
  std::vector<ProviderReplica> replicas;     // a merged section's; then no admin
};

nlohmann::json to_json(const ProviderSection& p);
// Refuses a section whose fields are missing or of the wrong type, naming the field.
Parsed<ProviderSection> provider_section_from_json(const nlohmann::json& j);

}  // namespace stampede
