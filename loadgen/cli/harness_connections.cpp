#include "cli/harness_connections.hpp"

#include <algorithm>

namespace stampede {
namespace {

std::optional<std::int64_t> provider_refused(const nlohmann::json& provider) {
  if (!provider.is_object()) return std::nullopt;
  const auto it = provider.find("connections_refused");
  if (it == provider.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

std::int64_t client_connect_errors(const Recording& r) {
  const auto& h = r.client_by_outcome;
  const auto column = static_cast<std::size_t>(Outcome::kConnectError);
  std::int64_t n = h.overflow(column);
  for (std::size_t b = 0; b < h.bins(); ++b) n += h.at(b, column);
  return n;
}

}  // namespace

ConnectionEvidence run_connection_evidence(const Results& r, const nlohmann::json& doc) {
  const auto& outages = r.scenario.provider.outages;
  return {r.recording.requests, client_connect_errors(r.recording),
          provider_refused(doc.value("provider", nlohmann::json())),
          std::any_of(outages.begin(), outages.end(),
                      [](const OutageWindow& w) { return w.action == OutageAction::kReset; })};
}

ConnectionEvidence exec_connection_evidence(const Results& r, const ProviderSection& provider) {
  const auto refused = provider.connections_refused;
  return {r.recording.requests + refused.value_or(0), std::nullopt, refused, false};
}

}  // namespace stampede
