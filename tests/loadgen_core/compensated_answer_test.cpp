// A live answer's scenario time from its send (LiveOptions::compensate_latency): the wire as
// it is, a stream's paced part stretched back by the time scale, as the simulation counts it.
#include <doctest/doctest.h>

#include "duration.hpp"
#include "live/loop.hpp"

using namespace stampede;

TEST_CASE("compensated answer time: the wire unscaled, a stream's paced part stretched back") {
  struct Row {
    std::int64_t sent, answered, head;
    double scale;
    std::int64_t want;
  };
  constexpr std::int64_t ms = kNsPerMs;
  const Row rows[] = {
      // No stream: the wall time on the wire, whatever the scale.
      {1'000 * ms, 1'002 * ms, 0, 0.1, 2 * ms},
      {1'000 * ms, 1'002 * ms, 0, 1, 2 * ms},
      // A stream whose head came 1 ms after the write and its end 400 ms of wall later: at
      // --time-scale 0.1 that is 4 s of the provider's pacing.
      {1'000 * ms, 1'401 * ms, 1'001 * ms, 0.1, 1 * ms + 4'000 * ms},
      {1'000 * ms, 1'401 * ms, 1'001 * ms, 1, 401 * ms},
      // A head stamped before the write (a clock's step) counts as none of the wire.
      {1'000 * ms, 1'100 * ms, 999 * ms, 0.5, 202 * ms},
      // A head after the answer is no head: the whole as wire.
      {1'000 * ms, 1'100 * ms, 1'200 * ms, 0.1, 100 * ms},
  };
  for (const Row& r : rows) {
    CAPTURE(r.answered);
    CAPTURE(r.head);
    CHECK(compensated_answer_ns(r.sent, r.answered, r.head, r.scale) == r.want);
  }
}
