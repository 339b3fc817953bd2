// The arrivals simulate's pass over a trace keeps, and the simulation plays back: the same as
// the trace played, and read while they are still being kept.
#include <doctest/doctest.h>

#include <array>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "policy/trace_arrivals.hpp"
#include "sim/played_arrivals.hpp"

using namespace stampede;

namespace {
// Every arrival of a stream as "id@ns tenant tokens;", tenant and tokens "-" when absent.
std::string arrivals_text(TraceArrivalStream& stream) {
  std::string got;
  for (; stream.peek(); stream.pop()) {
    const TraceRecord& r = stream.peek_record();
    got += std::to_string(stream.peek()->id) + "@" + std::to_string(stream.peek()->intended_ns) +
           " " + r.tenant.value_or("-") + " " + (r.tokens ? std::to_string(*r.tokens) : "-") + ";";
  }
  return got;
}
}  // namespace

TEST_CASE("played arrivals: kept as they are counted, played back as the trace plays them") {
  // Enough arrivals to fill several blocks (so some are read back from the file), their
  // tenants long and sometimes absent, tokens sometimes absent, times out of order within
  // the reorder window and spread within their second.
  std::string csv = "time,tenant,tokens\n";
  for (int i = 0; i < 30000; ++i)
    csv += std::to_string(1000 + i / 300 - (i % 7 == 0)) + "," +
           (i % 5 == 0 ? "" : "tenant-with-a-long-key-" + std::to_string(i % 41)) + "," +
           (i % 3 == 0 ? "" : std::to_string(i % 900)) + "\n";
  TraceSettings settings;
  settings.playback.scale = 1.5;
  std::istringstream counted(csv);
  PlayedArrivals kept;
  const auto count = count_trace_arrivals(counted, settings, 7, &kept);
  REQUIRE(count);
  kept.finish(true);
  CHECK(kept.kept());
  CHECK(kept.size() == *count);
  const auto read = trace_read_options(settings);
  REQUIRE(read);
  for (const auto& [total, first, stride] : std::vector<std::array<std::int64_t, 3>>{
           {*count, 0, 1}, {*count, 2, 3}, {*count - 100, 0, 1}}) {
    CAPTURE(first);
    std::istringstream in(csv);
    TraceArrivalStream from_trace(in, *read, settings, 7, total, first, stride);
    TraceArrivalStream played(std::make_unique<PlayedArrivals::Reader>(kept), total, first, stride);
    const std::string want = arrivals_text(from_trace);
    CHECK(want.size() > 100000);
    CHECK(arrivals_text(played) == want);
  }
}

TEST_CASE("played arrivals: played back while they are still being kept, to the writer's end") {
  for (const bool read_through : {true, false}) {
    CAPTURE(read_through);
    PlayedArrivals kept;
    constexpr std::int64_t kArrivals = 300000;  // several blocks, so readers wait for spills
    std::thread writer([&] {
      TraceRecord r;
      for (std::int64_t i = 0; i < kArrivals; ++i) {
        r.tokens = i % 3 == 0 ? std::optional<std::int64_t>(i) : std::nullopt;
        kept.add(i * 7, r);
      }
      kept.finish(read_through);  // false: the trace had an error after these
    });
    PlayedArrivals::Reader reader(kept);
    std::int64_t at_ns = 0, n = 0;
    bool in_order = true;
    for (TraceRecord r; reader.next(at_ns, r); ++n)
      in_order =
          in_order && at_ns == n * 7 && r.tokens == (n % 3 == 0 ? std::optional(n) : std::nullopt);
    writer.join();
    CHECK(in_order);
    CHECK(n == kArrivals);
    CHECK(kept.total() == (read_through ? std::optional(kArrivals) : std::nullopt));
  }
}

TEST_CASE("played arrivals: a time earlier than the one before is not kept") {
  PlayedArrivals kept;
  kept.add(5, {});
  CHECK(kept.kept());
  kept.add(4, {});
  CHECK_FALSE(kept.kept());
}
