#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/arrival_schedule.hpp"
#include "stages.hpp"

using namespace stampede;

namespace {

FleetConfig steady(Rate rate, std::int64_t items) {
  FleetConfig f;
  f.workload = WorkloadKind::kSteady;
  f.rate = rate;
  f.items = items;
  return f;
}

FleetConfig staged(const std::string& stages) {
  FleetConfig f;
  f.workload = WorkloadKind::kSteady;
  const auto parsed = parse_stages(stages);
  REQUIRE_MESSAGE(parsed, parsed.error());
  f.stages = *parsed;
  return f;
}

// Every arrival time, in ms.
std::vector<std::int64_t> arrivals_ms(const FleetConfig& f) {
  const ArrivalSchedule schedule(f);
  std::vector<std::int64_t> out;
  for (std::int64_t k = 0; k < schedule.total(); ++k) out.push_back(schedule.at_ns(k) / kNsPerMs);
  return out;
}

// Arrivals per whole second of the schedule.
std::vector<std::int64_t> per_second_counts(const FleetConfig& f) {
  std::vector<std::int64_t> out;
  for (const auto ms : arrivals_ms(f)) {
    const auto s = static_cast<std::size_t>(ms / 1000);
    if (out.size() <= s) out.resize(s + 1);
    ++out[s];
  }
  return out;
}

}  // namespace

TEST_CASE("steady: item k arrives at k / rate") {
  struct Row {
    Rate rate;
    std::int64_t items;
    std::vector<std::int64_t> ms;
  };
  for (const auto& r : std::vector<Row>{
           {Rate{10, kNsPerSec}, 5, {0, 100, 200, 300, 400}},
           {Rate{4000, 60 * kNsPerSec}, 5, {0, 15, 30, 45, 60}},
           {Rate{1, kNsPerSec}, 3, {0, 1000, 2000}},
           {Rate{3, kNsPerSec}, 4, {0, 333, 666, 1000}},
       }) {
    CAPTURE(format_rate(r.rate));
    CHECK(arrivals_ms(steady(r.rate, r.items)) == r.ms);
  }
  FleetConfig f = steady(Rate{4000, 60 * kNsPerSec}, 0);
  f.items = std::nullopt;
  f.duration_ns = kNsPerSec;
  CHECK(ArrivalSchedule(f).total() == 66);  // rate x duration, whole items
}

TEST_CASE("steady: an item due past the end of int64 time is due then, not before t=0") {
  const FleetConfig f = steady(Rate{1, 2'562'046LL * 3600 * kNsPerSec}, 3);  // one per 292 years
  const ArrivalSchedule s(f);
  CHECK(s.at_ns(0) == 0);
  CHECK(s.at_ns(1) == f.rate->window_ns);
  CHECK(s.at_ns(2) == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("stages: the rate ramps linearly from target to target, k6's convention") {
  struct Row {
    std::string stages;
    std::int64_t total;
    std::vector<std::int64_t> per_second;
  };
  for (const auto& r : std::vector<Row>{
           // From 0 to 10/s over 4 s: the area t^2 / 0.8 reaches k at sqrt(0.8 k).
           {"4s:10/s", 20, {2, 3, 7, 8}},
           // A plateau after a ramp, then down to 0.
           {"2s:10/s,2s:10/s,2s:0/s", 40, {3, 7, 10, 10, 8, 2}},
           // A start rate: flat from the first second.
           {"5/s,3s:5/s", 15, {5, 5, 5}},
           // A pause at zero between two plateaus: what falls due in it arrives as the rate rises.
           {"4/s,1s:4/s,1s:0/s,1s:0/s,1s:4/s,1s:4/s", 12, {4, 2, 0, 2, 4}},
           // Per minute.
           {"60/min,3s:60/min", 3, {1, 1, 1}},
       }) {
    CAPTURE(r.stages);
    const FleetConfig f = staged(r.stages);
    CHECK(ArrivalSchedule(f).total() == r.total);
    CHECK(per_second_counts(f) == r.per_second);
  }
}

TEST_CASE("stages: arrival times are monotone and the total is the area under the ramp") {
  const FleetConfig f = staged("30s:10/s,2m:100/s,30s:0/s");
  const ArrivalSchedule s(f);
  CHECK(s.total() == 150 + 6600 + 1500);
  std::int64_t previous = 0;
  for (std::int64_t k = 0; k < s.total(); ++k) {
    const auto t = s.at_ns(k);
    REQUIRE(t >= previous);
    previous = t;
  }
  CHECK(previous < 180 * kNsPerSec);
  // The same input, the same times: a pure function.
  CHECK(ArrivalSchedule(f).at_ns(4321) == s.at_ns(4321));
}

TEST_CASE("stages: items may cut the ramp short, never lengthen it") {
  FleetConfig f = staged("10s:10/s");
  CHECK(f.item_count() == 50);
  f.items = 20;
  CHECK(f.item_count() == 20);
  f.items = 500;
  CHECK(f.item_count() == 50);
}

TEST_CASE("an arrival stream deals every stride-th arrival, in time order") {
  const FleetConfig f = steady(Rate{10, kNsPerSec}, 7);
  const ArrivalSchedule s(f);
  for (const auto& [first, ids] : std::vector<std::pair<std::int64_t, std::string>>{
           {0, "0@0 3@300 6@600 "}, {1, "1@100 4@400 "}, {2, "2@200 5@500 "}}) {
    ArrivalStream stream(s, first, 3);
    std::string got;
    while (const auto item = stream.peek()) {
      got += std::to_string(item->id) + "@" + std::to_string(item->intended_ns / kNsPerMs) + " ";
      stream.pop();
    }
    CHECK(got == ids);
  }
}

TEST_CASE("the client pool hands out the client free longest, and none when all are busy") {
  ClientPool pool;
  for (std::uint32_t c = 0; c < 3; ++c) pool.release(c);
  CHECK(pool.take() == 0u);
  CHECK(pool.take() == 1u);
  pool.release(0);
  CHECK(pool.take() == 2u);
  CHECK(pool.take() == 0u);
  CHECK_FALSE(pool.take().has_value());  // the arrival is dropped
  CHECK(pool.free() == 0);
}

TEST_CASE("parse_stages: the forms it takes, and every bad one in one line naming it") {
  const auto ok = parse_stages("30s:10/s,2m:100/s,30s:0/s");
  REQUIRE(ok);
  CHECK(ok->stages.size() == 3);
  CHECK(ok->stages[2].target == Rate{0, kNsPerSec});
  CHECK(format_stages(*ok) == "30s:10/s,2m:100/s,30s:0/s");
  const auto start = parse_stages("20/min,1m:40/min");
  REQUIRE(start);
  CHECK(start->start == Rate{20, 60 * kNsPerSec});
  CHECK(format_stages(*start) == "20/min,1m:40/min");
  struct Bad {
    std::string text;
    std::string wanted;
  };
  std::string too_many;
  for (std::size_t i = 0; i <= kMaxStages; ++i) too_many += (i ? "," : "") + std::string("1s:1/s");
  for (const auto& b : std::vector<Bad>{
           {"", "empty"},
           {"30s", "'30s' is not a rate"},
           {"0s:10/s", "'0s:10/s': its duration must be longer than zero"},
           {"-5s:10/s", "'-5s' is not a duration"},
           {"30s:-1/s", "'-1/s' is not a rate"},
           {"30s:10/sec", "unknown unit 'sec'"},
           {"30parsecs:10/s", "unknown unit"},
           {"30s:10/s,,1m:5/s", "an empty stage"},
           {"30s:10/s,", "an empty stage"},
           {"10/s", "no stage"},
           {"30s:10/s,5/s", "expected DURATION:RATE"},
           {too_many, "more than 100 stages"},
           {"9223372035s:1/s,9223372035s:1/s", "longer than int64 time"},
       }) {
    CAPTURE(b.text);
    const auto p = parse_stages(b.text);
    REQUIRE_FALSE(p);
    CHECK(p.error().find(b.wanted) != std::string::npos);
    CHECK(p.error().find('\n') == std::string::npos);
  }
}
