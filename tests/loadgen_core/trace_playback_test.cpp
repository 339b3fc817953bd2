#include <doctest/doctest.h>

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/trace_arrivals.hpp"
#include "policy/trace_playback.hpp"

using namespace stampede;

namespace {

// Every arrival's time in ns, as the player gives them.
std::vector<std::int64_t> play(const std::string& csv, const TracePlayback& playback,
                               std::uint64_t seed = 1) {
  std::istringstream in(csv);
  TraceReader reader(in, {});
  TracePlayer player(reader, playback, seed);
  std::vector<std::int64_t> out;
  while (const auto a = player.next()) out.push_back(a->at_ns);
  REQUIRE(player.error() == "");
  return out;
}

std::vector<std::int64_t> ms(const std::vector<std::int64_t>& ns) {
  std::vector<std::int64_t> out;
  for (const auto t : ns) out.push_back(t / kNsPerMs);
  return out;
}

// Arrivals per whole second.
std::vector<std::int64_t> per_second(const std::vector<std::int64_t>& ns) {
  std::vector<std::int64_t> out;
  for (const auto t : ns) {
    const auto s = static_cast<std::size_t>(t / kNsPerSec);
    if (out.size() <= s) out.resize(s + 1);
    ++out[s];
  }
  return out;
}

// n records a millisecond apart, fractional times.
std::string every_ms(int n) {
  std::string csv = "time\n";
  for (int i = 0; i < n; ++i)
    csv += std::to_string(100 + i / 1000) + "." + std::to_string(1000 + i % 1000).substr(1) + "\n";
  return csv;
}

bool sorted(const std::vector<std::int64_t>& v) {
  return std::is_sorted(v.begin(), v.end());
}

}  // namespace

TEST_CASE("trace playback: --speed, --from/--to and --trace-spread none, exactly") {
  const std::string fractional = "time\n10.0\n10.5\n12.25\n13.0\n";
  const std::string whole = "time\n10\n10\n11\n13\n";
  struct Row {
    std::string name;
    const std::string* trace;
    TracePlayback playback;
    std::vector<std::int64_t> ms;
  };
  const auto with = [](auto change) {
    TracePlayback p;
    p.spread = TraceSpread::kNone;
    change(p);
    return p;
  };
  for (const auto& r : std::vector<Row>{
           {"as recorded", &fractional, with([](auto&) {}), {0, 500, 2250, 3000}},
           {"10 times faster", &fractional, with([](auto& p) { p.speed = 10; }), {0, 50, 225, 300}},
           {"1000 times faster", &fractional, with([](auto& p) { p.speed = 1000; }), {0, 0, 2, 3}},
           {"half as fast",
            &fractional,
            with([](auto& p) { p.speed = 0.5; }),
            {0, 1000, 4500, 6000}},
           {"a window, from its start",
            &fractional,
            with([](auto& p) {
              p.from_ns = 500 * kNsPerMs;
              p.to_ns = 3 * kNsPerSec;
            }),
            {0, 1750}},
           {"a window, then faster",
            &fractional,
            with([](auto& p) {
              p.from_ns = 500 * kNsPerMs;
              p.speed = 2;
            }),
            {0, 875, 1250}},
           {"whole seconds at their start", &whole, with([](auto&) {}), {0, 0, 1000, 3000}},
           {"twice each, no spread",
            &whole,
            with([](auto& p) {
              p.scale = 2;
              p.scale_spread_ns = 0;
            }),
            {0, 0, 0, 0, 1000, 1000, 3000, 3000}},
       }) {
    CAPTURE(r.name);
    CHECK(ms(play(*r.trace, r.playback)) == r.ms);
  }
}

TEST_CASE("trace playback: --trace-spread uniform keeps each arrival in its second, seeded") {
  const std::string whole = "time\n10\n10\n10\n11\n13\n13\n";
  const TracePlayback uniform;
  const auto a = play(whole, uniform, 7);
  CHECK(per_second(a) == std::vector<std::int64_t>{3, 1, 0, 2});
  CHECK(sorted(a));
  CHECK(a == play(whole, uniform, 7));
  CHECK(a != play(whole, uniform, 8));
  // Spread: not all at the second's start as --trace-spread none sends them.
  CHECK(std::count_if(a.begin(), a.end(), [](auto t) { return t % kNsPerSec != 0; }) > 0);
  // A fraction says the time is exact: not spread.
  CHECK(ms(play("time\n10.0\n10.25\n", uniform, 7)) == std::vector<std::int64_t>{0, 250});
}

TEST_CASE("trace playback: --scale thins with a seeded keep and multiplies with spread copies") {
  const std::string trace = every_ms(2000);
  const auto with_scale = [](double r, std::int64_t spread_ns = kNsPerSec) {
    TracePlayback p;
    p.scale = r;
    p.scale_spread_ns = spread_ns;
    return p;
  };
  struct Row {
    double scale;
    std::int64_t low, high;  // the count's bounds: exact for whole R, else 5 sigma
  };
  for (const auto& r : std::vector<Row>{
           {1, 2000, 2000},
           {3, 6000, 6000},
           {0.5, 1000 - 112, 1000 + 112},
           {0.1, 200 - 67, 200 + 67},
           {2.5, 5000 - 112, 5000 + 112},
       }) {
    CAPTURE(r.scale);
    const auto a = play(trace, with_scale(r.scale), 3);
    CHECK(static_cast<std::int64_t>(a.size()) >= r.low);
    CHECK(static_cast<std::int64_t>(a.size()) <= r.high);
    CHECK(sorted(a));
    CHECK(a == play(trace, with_scale(r.scale), 3));
    if (r.scale != 1) CHECK(a != play(trace, with_scale(r.scale), 4));
  }
  // Each copy is sent within --scale-spread after its record: with 1 ms, inside the trace's
  // own span plus 1 ms.
  const auto copies = play(trace, with_scale(3, kNsPerMs), 3);
  CHECK(copies.back() < 2000 * kNsPerMs);
  CHECK(per_second(play("time\n10.0\n11.0\n", with_scale(4, 10 * kNsPerMs))) ==
        std::vector<std::int64_t>{4, 4});
}

TEST_CASE("trace arrivals: counted before the run, then split into streams as items") {
  const std::string csv = "time\n0.0\n0.1\n0.2\n0.3\n0.4\n";
  TraceSettings settings;
  std::istringstream counted(csv);
  const auto count = count_trace_arrivals(counted, settings, 1);
  REQUIRE(count);
  CHECK(*count == 5);
  const auto read = trace_read_options(settings);
  REQUIRE(read);
  struct Row {
    std::int64_t total, first, stride;
    std::string items;  // "id@ms"
  };
  for (const auto& r : std::vector<Row>{{5, 0, 1, "0@0 1@100 2@200 3@300 4@400 "},
                                        {5, 0, 2, "0@0 2@200 4@400 "},
                                        {5, 1, 2, "1@100 3@300 "},
                                        {3, 0, 1, "0@0 1@100 2@200 "}}) {
    CAPTURE(r.first);
    CAPTURE(r.stride);
    std::istringstream in(csv);
    TraceArrivalStream stream(in, *read, settings, 1, r.total, r.first, r.stride);
    std::string got;
    for (; stream.peek(); stream.pop())
      got += std::to_string(stream.peek()->id) + "@" +
             std::to_string(stream.peek()->intended_ns / kNsPerMs) + " ";
    CHECK(got == r.items);
  }
  settings.format = "xml";
  CHECK_FALSE(trace_read_options(settings));
  settings.format = "auto";
  settings.playback.from_ns = 10 * kNsPerSec;
  std::istringstream none(csv);
  CHECK(count_trace_arrivals(none, settings, 1).error() ==
        "the trace has records but none is played: widen --from/--to or raise --scale");
}
