// LockedProvider without a store, driven with chosen arrival stamps: what the limiters decide
// at and what the arrival log records when two server threads decide arrivals out of the
// order their bytes came in (one thread kept off the CPU while the other goes on).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "duration.hpp"
#include "model/send_attribution.hpp"
#include "server/locked_provider.hpp"
#include "support/files.hpp"

using namespace stampede;
using support::parse_csv;

namespace {

LockedProvider::Options two_threads_one_per_second() {
  LockedProvider::Options o;
  o.config.allowance = Rate{1, kNsPerSec};
  o.threads = 2;
  o.keep_log = true;
  return o;
}

}  // namespace

TEST_CASE("LockedProvider: an arrival decided after a later one is logged at its own stamp") {
  LockedProvider provider(two_threads_one_per_second());
  // Scenario time t is the steady clock's start + t (time scale 1): exact, no clock read.
  const std::int64_t start = provider.clock().to_steady_ns(0);
  constexpr std::int64_t kLater = kNsPerSec + kNsPerMs;    // second 1's first arrival
  constexpr std::int64_t kEarlier = kNsPerSec - kNsPerMs;  // second 0's, decided after it
  const auto later = provider.admit(0, start + kLater, "t", SendClaim{}, "later");
  const auto earlier = provider.admit(1, start + kEarlier, "t", SendClaim{}, "earlier");

  // The limiters see time in order: the earlier arrival is decided at the later one's time,
  // in second 1, whose one admission the later arrival had.
  CHECK(later.t_ns == kLater);
  CHECK(later.decision.status == 200);
  CHECK(earlier.t_ns == kLater);
  CHECK(earlier.decision.status == 429);

  // The log: rows in the order of decisions, each at its stamp, with the time decided at.
  const auto rows = parse_csv(provider.arrivals_csv());
  REQUIRE(rows.size() == 3);
  CHECK(rows[0][6] == "decided_t_ns");
  CHECK(rows[1] == std::vector<std::string>{std::to_string(kLater), "t", "200", "", "later", "none",
                                            std::to_string(kLater), "", ""});
  CHECK(rows[2] == std::vector<std::string>{std::to_string(kEarlier), "t", "429", "", "earlier",
                                            "none", std::to_string(kLater), "", ""});
  // The stats count each arrival in the window that decided it: both in second 1.
  CHECK(provider.stats_json().at("requests") == 2);
}

TEST_CASE("LockedProvider: bytes that came in before a reset are logged at its t = 0") {
  LockedProvider provider(two_threads_one_per_second());
  const std::int64_t before_reset = provider.clock().to_steady_ns(0) - kNsPerMs;
  provider.admit(0, before_reset, "t", SendClaim{}, "c");
  const auto rows = parse_csv(provider.arrivals_csv());
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].front() == "0");
  CHECK(rows[1][6] == "0");
}
