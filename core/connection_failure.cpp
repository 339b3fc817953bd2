#include "connection_failure.hpp"

#include <algorithm>
#include <cstdio>

namespace stampede {
namespace {

constexpr const char* kRemedy =
    "serve it from more processes (fakeprovider --processes N, each holding --max-connections, "
    "16000 by default), raise --max-connections, and raise ulimit -n for both fakeprovider and "
    "loadgen";

// "88% of the 1000 sends (880)"
std::string share_of_sends(std::int64_t failed, std::int64_t sends) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0f%% of the %lld sends (%lld)",
                100.0 * static_cast<double>(failed) / static_cast<double>(sends),
                static_cast<long long>(sends), static_cast<long long>(failed));
  return buf;
}

bool mostly(std::int64_t failed, std::int64_t sends) {
  return static_cast<double>(failed) > kMostlyConnectionErrors * static_cast<double>(sends);
}

}  // namespace

std::optional<ConnectionFailure> connection_failure(const ConnectionEvidence& e) {
  if (e.sends <= 0) return std::nullopt;
  const std::string what = "harness failure: the fleet could not connect: ";
  const std::string measured =
      "; the run measured the connections the harness could make, not the fleet. ";
  if (e.provider_refused) {
    const std::int64_t failed =
        std::min(*e.provider_refused, e.connect_errors.value_or(*e.provider_refused));
    if (!mostly(failed, e.sends)) return std::nullopt;
    return ConnectionFailure{what + share_of_sends(failed, e.sends) +
                                 " found the provider full: it turned away " +
                                 std::to_string(*e.provider_refused) +
                                 " connections at --max-connections or for want of descriptors" +
                                 measured + "Give the provider room for every client: " + kRemedy,
                             true};
  }
  if (!e.connect_errors || e.declared_resets || !mostly(*e.connect_errors, e.sends))
    return std::nullopt;
  return ConnectionFailure{
      "warning: the fleet mostly could not connect: " + share_of_sends(*e.connect_errors, e.sends) +
          " were refused or reset before an answer; if the target was up, the run measured the "
          "connections the harness could make, not the fleet. If the target is a fakeprovider, " +
          kRemedy +
          " (with --provider-admin, loadgen reads its count of refusals and a full provider is a "
          "harness failure, exit 3); otherwise raise the target's connection limit, or loadgen's "
          "ulimit -n",
      false};
}

}  // namespace stampede
