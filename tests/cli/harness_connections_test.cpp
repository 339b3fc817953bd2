// What run and exec give the harness-failure rule: from the results document, never a guess.
#include <doctest/doctest.h>

#include "cli/harness_connections.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

// n sends at second 0, each coming to `outcome`, as the clients record them.
void sends(Recording& r, Outcome outcome, int n) {
  for (int i = 0; i < n; ++i) r.record_send(i, 1, outcome);
}

}  // namespace

TEST_CASE("run: the clients' sends and connection errors, the provider's refusals if counted") {
  Results r;
  sends(r.recording, Outcome::kOk, 12);
  sends(r.recording, Outcome::kConnectError, 88);
  const auto without = run_connection_evidence(r, json::object());
  CHECK(without.sends == 100);
  CHECK(without.connect_errors == 88);
  CHECK_FALSE(without.provider_refused);
  REQUIRE(connection_failure(without));
  // Without the provider's count a provider that was down looks the same: a warning only.
  CHECK_FALSE(connection_failure(without)->harness);

  const auto with = run_connection_evidence(r, {{"provider", {{"connections_refused", 0}}}});
  CHECK(with.provider_refused == 0);
  // The provider refused none: the 88 are the target's doing, outcomes, not the harness's.
  CHECK_FALSE(connection_failure(with));

  r.scenario.provider.outages.push_back({0, kNsPerSec, OutageAction::kReset});
  CHECK(run_connection_evidence(r, json::object()).declared_resets);
}

TEST_CASE("exec: the provider's arrivals and refusals; the clients are CMD's, unseen") {
  Results r;
  r.recording.requests = 40;  // the provider's arrivals
  ProviderSection counted;
  counted.requests = 40;
  counted.connections_refused = 60;
  const auto e = exec_connection_evidence(r, counted);
  CHECK(e.sends == 100);
  CHECK_FALSE(e.connect_errors);
  CHECK(e.provider_refused == 60);
  REQUIRE(connection_failure(e));
  CHECK(connection_failure(e)->harness);
  // A provider that does not count its refusals: nothing to judge by.
  ProviderSection uncounted;
  uncounted.requests = 40;
  CHECK_FALSE(connection_failure(exec_connection_evidence(r, uncounted)));
}
