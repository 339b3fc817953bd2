#include <doctest/doctest.h>

#include <cstdint>

#include "model/arrival_edge.hpp"

using namespace stampede;

TEST_CASE("edge_is_arrival: the earliest edge since the answer, never one the answer may own") {
  struct Case {
    const char* what;
    std::int64_t seen_ns, answered_ns, polled_from_ns;
    bool arrival;
  };
  const Case cases[] = {
      {"a first request, nothing answered yet", 0, 0, 100, true},
      {"bytes after the answer, none stamped", 0, 50, 100, true},
      {"a stamp from before the answer is the old request's", 40, 50, 100, true},
      {"a stamp equal to the answer's time is the old request's", 50, 50, 100, true},
      {"a stamp since the answer stays: the earliest edge counts", 60, 50, 100, false},
      {"answered after the poll began: the bytes may be the answered request's", 0, 120, 100,
       false},
      {"answered as the poll began", 0, 100, 100, false},
      {"answered after the poll began, an old stamp held", 40, 120, 100, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK(edge_is_arrival(c.seen_ns, c.answered_ns, c.polled_from_ns) == c.arrival);
  }
}
