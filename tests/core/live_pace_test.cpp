// The live dashboards' pace figures (live_pace): the rate now and the peak ratio so far, from
// the binned counts and the clock, by tables.
#include <doctest/doctest.h>

#include <optional>
#include <utility>
#include <vector>

#include "live_fields.hpp"

using namespace stampede;

namespace {

// Arrivals: so many in the bin starting at each of these nanoseconds.
BinnedCounts counts_of(std::int64_t bin_ns, const std::vector<std::pair<std::int64_t, int>>& bins) {
  BinnedCounts h(bin_ns, kOutcomeCount);
  for (const auto& [at_ns, n] : bins) h.add(at_ns, static_cast<std::size_t>(Outcome::kOk), n);
  return h;
}

std::vector<std::pair<std::int64_t, int>> every_second(int from, int to, int n) {
  std::vector<std::pair<std::int64_t, int>> out;
  for (int s = from; s < to; ++s) out.emplace_back(s * kNsPerSec, n);
  return out;
}

}  // namespace

TEST_CASE("live pace: the rate now, over the last whole bins that cover a second") {
  struct Case {
    const char* what;
    std::int64_t bin_ns;
    std::vector<std::pair<std::int64_t, int>> bins;
    std::int64_t now_ns;
    std::optional<double> per_s;
    double from_s, to_s;
  };
  const std::vector<Case> cases{
      {"the last whole second",
       kNsPerSec,
       {{11 * kNsPerSec, 7}, {12 * kNsPerSec, 40}, {13 * kNsPerSec, 3}},
       13'900'000'000,
       40,
       12,
       13},
      {"traffic over: 0 now, not its last rate", kNsPerSec, every_second(0, 8, 30), 13'900'000'000,
       0, 12, 13},
      {"no whole second yet", kNsPerSec, {{0, 5}}, 900'000'000, std::nullopt, 0, 0},
      {"the first whole second", kNsPerSec, {{0, 5}, {kNsPerSec, 9}}, kNsPerSec, 5, 0, 1},
      {"100 ms bins: the ten before now's",
       kNsPerSec / 10,
       {{950'000'000, 100}, {1'050'000'000, 4}, {1'950'000'000, 6}, {2'050'000'000, 50}},
       2'050'000'000,
       10,
       1,
       2},
      {"2 s bins: the last whole one",
       2 * kNsPerSec,
       {{2 * kNsPerSec, 30}, {4 * kNsPerSec, 8}},
       5 * kNsPerSec,
       15,
       2,
       4},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto pace = live_pace(counts_of(c.bin_ns, c.bins), c.now_ns, ProviderConfig{});
    REQUIRE(pace.now_per_s.has_value() == c.per_s.has_value());
    if (!c.per_s) continue;
    CHECK(*pace.now_per_s == doctest::Approx(*c.per_s));
    CHECK(pace.now_from_s == doctest::Approx(c.from_s));
    CHECK(pace.now_to_s == doctest::Approx(c.to_s));
  }
}

TEST_CASE("live pace: the peak ratio so far, counted from the last outage's end as the gate does") {
  const auto allowance = [](std::int64_t per_s, std::vector<OutageWindow> outages) {
    ProviderConfig p;
    p.allowance = Rate{per_s, kNsPerSec};
    p.outages = std::move(outages);
    return p;
  };
  ProviderConfig capacity_only;
  capacity_only.capacity = Rate{50, kNsPerSec};
  const BinnedCounts storm =
      counts_of(kNsPerSec, {{0, 100}, {kNsPerSec, 50}, {4 * kNsPerSec, 60}, {5 * kNsPerSec, 40}});
  struct Case {
    const char* what;
    ProviderConfig provider;
    double peak_per_s, peak_second, from_s;
    std::optional<double> ratio;
  };
  const OutageWindow over{2 * kNsPerSec, 4 * kNsPerSec, OutageAction::kStatus503};
  const OutageWindow going{3 * kNsPerSec, 30 * kNsPerSec, OutageAction::kStatus503};
  const std::vector<Case> cases{
      {"no outage: the first second's wave", allowance(20, {}), 100, 0, 0, 5},
      {"after the outage", allowance(20, {over}), 60, 4, 4, 3},
      {"an outage still going: nothing counted yet", allowance(20, {going}), 0, 0, 30, 0},
      {"no allowance: over the capacity", capacity_only, 100, 0, 0, 2},
      {"no limit declared: no ratio", ProviderConfig{}, 100, 0, 0, std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto pace = live_pace(storm, 6 * kNsPerSec, c.provider);
    CHECK(pace.peak_per_s == doctest::Approx(c.peak_per_s));
    CHECK(pace.peak_second == doctest::Approx(c.peak_second));
    CHECK(pace.peak_from_s == doctest::Approx(c.from_s));
    REQUIRE(pace.peak_ratio.has_value() == c.ratio.has_value());
    if (c.ratio) CHECK(*pace.peak_ratio == doctest::Approx(*c.ratio));
  }
  CHECK(live_pace_json(live_pace(storm, 6 * kNsPerSec, ProviderConfig{})).at("peak_ratio") ==
        nullptr);
}
