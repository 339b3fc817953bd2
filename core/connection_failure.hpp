#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace stampede {

// What a finished run knows about the connections its sends could not make.
struct ConnectionEvidence {
  // The sends the fleet made: each needed a connection, new or kept open.
  std::int64_t sends = 0;
  // Of them, refused or reset before an answer, as the clients saw them; none where the
  // clients are not loadgen's (exec).
  std::optional<std::int64_t> connect_errors;
  // The connections the provider turned away (at --max-connections, out of descriptors), from
  // its stats with --provider-admin; none without them.
  std::optional<std::int64_t> provider_refused;
  // The scenario has outages that reset connections: connection errors it asked for.
  bool declared_resets = false;
};

// A run whose sends were mostly connection errors measured the connections the harness could
// make, not the fleet: more than this share of them, and it is a harness failure (exit 3).
inline constexpr double kMostlyConnectionErrors = 0.5;

// What the connection errors say about the run, naming the remedy.
struct ConnectionFailure {
  std::string why;
  // The provider's own count shows it turned the fleet away: a harness failure (exit 3). Without
  // it, mostly connection errors may as well be a provider that was down or killed, a fault the
  // fleet met; that is said as a warning, and the checks judge the fleet.
  bool harness = false;
};

// None when the connections are not the story. With the provider's count, the sends it turned
// away (no more than the clients' connection errors) must be more than the share: connection
// errors it did not cause (a reset outage, a proxy between) are the target's outcomes. Without
// it, the clients' connection errors alone, unless the scenario declares resets (the two cannot
// then be told apart).
std::optional<ConnectionFailure> connection_failure(const ConnectionEvidence& e);

}  // namespace stampede
