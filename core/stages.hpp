#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"
#include "rate.hpp"

namespace stampede {

// A ramping arrival rate, k6's ramping-arrival-rate convention: each stage "DURATION:TARGET"
// ramps the rate linearly from the previous stage's target (the first from the start rate,
// 0 unless the list begins with a bare rate) to its own target over its duration. A target
// may be zero (a ramp down, or a pause); the rate past the last stage is zero.
struct Stage {
  std::int64_t duration_ns = 0;
  Rate target;  // count may be 0
  bool operator==(const Stage&) const = default;
};

struct Stages {
  Rate start{0, 1'000'000'000};
  std::vector<Stage> stages;
  bool empty() const { return stages.empty(); }
  bool operator==(const Stages&) const = default;
};

// A ramp longer than this many stages is a typo, not a test plan.
inline constexpr std::size_t kMaxStages = 100;

// "30s:10/s,2m:100/s,30s:0/s", optionally starting with a bare start rate: "10/s,1m:10/s".
// Durations and rates as --duration and --rate take them, a rate's count may be 0.
Parsed<Stages> parse_stages(std::string_view text);
std::string format_stages(const Stages& s);

// The arrivals per second at a stage's start and end.
double per_second(const Rate& r);
// The length of the whole ramp.
std::int64_t stages_duration_ns(const Stages& s);
// The area under the ramp: how many items arrive in all (whole items, rounded down).
double stages_area(const Stages& s);

}  // namespace stampede
