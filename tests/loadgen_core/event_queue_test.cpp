#include <doctest/doctest.h>

#include <cstdint>
#include <queue>
#include <tuple>
#include <vector>

#include "duration.hpp"
#include "rng.hpp"
#include "sim/event_queue.hpp"

using namespace stampede;

namespace {

// The order the agenda promises: time, then push order — what a binary heap on (time, sequence
// number) gives.
struct Reference {
  struct Entry {
    std::int64_t t_ns;
    std::uint64_t seq;
    std::uint32_t client;
    std::uint8_t kind;
    bool operator>(const Entry& o) const { return std::tie(t_ns, seq) > std::tie(o.t_ns, o.seq); }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  std::uint64_t seq = 0;

  void push(std::int64_t t_ns, std::uint32_t client, std::uint8_t kind) {
    heap.push({t_ns, seq++, client, kind});
  }
};

// A delay of every size the queue treats differently: none (into the open bucket), within the
// fine and the coarse bucket, anywhere in the ring, and beyond it; half of them on a coarse grid
// so that many land on the same instant.
std::int64_t draw_delay(Rng& rng) {
  const std::int64_t reach[] = {0, 1'000'000, 70 * kNsPerMs, 60 * kNsPerSec, 400 * kNsPerSec};
  const std::int64_t d = rng.uniform(0, reach[rng.uniform(0, 5)] + 1);
  return rng.uniform(0, 2) ? d : d - d % (50 * kNsPerMs);
}

// Pushes and pops at random, each push at or after the last pop, and checks every pop against
// the reference. It starts with a burst spread over [0, burst_ns], a thousand events to a
// millisecond bucket as in a retry wave, half of them on a grid for ties. Returns the number
// of events popped.
std::int64_t check_against_reference(std::uint64_t seed, int steps, int burst,
                                     std::int64_t burst_ns) {
  Rng rng = make_stream(seed, 0);
  EventQueue q;
  Reference ref;
  std::uint32_t next_client = 0;
  auto push = [&](std::int64_t t) {
    const auto kind = static_cast<std::uint8_t>(next_client % 2);
    q.push(t, next_client, kind);
    ref.push(t, next_client, kind);
    ++next_client;
  };
  for (int i = 0; i < burst; ++i) {
    const std::int64_t t = rng.uniform(0, burst_ns + 1);
    push(i % 2 ? t : t - t % 1000);
  }
  std::int64_t now = 0;
  std::int64_t popped = 0;
  for (int step = 0; step < steps; ++step) {
    const auto pushes = rng.uniform(0, 3);
    for (std::int64_t i = 0; i < pushes; ++i) push(now + draw_delay(rng));
    const auto pops = rng.uniform(0, 3);
    for (std::int64_t i = 0; i < pops; ++i) {
      REQUIRE(q.empty() == ref.heap.empty());
      if (ref.heap.empty()) break;
      const auto want = ref.heap.top();
      const TimedEvent got = q.top();
      REQUIRE(got.t_ns == want.t_ns);
      REQUIRE(got.client == want.client);
      REQUIRE(got.kind == want.kind);
      q.pop();
      ref.heap.pop();
      now = want.t_ns;
      ++popped;
    }
  }
  while (!ref.heap.empty()) {
    REQUIRE_FALSE(q.empty());
    REQUIRE(q.top().client == ref.heap.top().client);
    q.pop();
    ref.heap.pop();
    ++popped;
  }
  CHECK(q.empty());
  return popped;
}

}  // namespace

TEST_CASE("the agenda pops in (time, push order) like a heap, ties and far-future times included") {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    const int burst = seed % 3 == 0 ? 0 : 5'000;
    CHECK(check_against_reference(seed, 40'000, burst, seed % 3 == 1 ? 0 : 5'000'000) > 30'000);
  }
}

TEST_CASE("the agenda keeps push order among events at one instant across its levels") {
  EventQueue q;
  const std::int64_t far = 90 * kNsPerSec;  // beyond the ring's reach at first
  q.push(far, 0, 0);
  q.push(far, 1, 0);
  q.push(30 * kNsPerSec, 9, 0);
  REQUIRE_FALSE(q.empty());
  CHECK(q.top().client == 9);
  q.pop();
  // Now in reach: straight into the ring, after the two that came through the overflow; and
  // one at this very instant, into the open bucket.
  q.push(far, 2, 0);
  q.push(far, 3, 1);
  q.push(30 * kNsPerSec, 4, 0);
  std::vector<std::uint32_t> order;
  while (!q.empty()) {
    order.push_back(q.top().client);
    q.pop();
  }
  CHECK(order == std::vector<std::uint32_t>{4, 0, 1, 2, 3});
}

TEST_CASE("the agenda skips long empty stretches and lets the caller look ahead") {
  EventQueue q;
  for (std::uint32_t i = 0; i < 5; ++i)
    q.push(static_cast<std::int64_t>(i) * 3600 * kNsPerSec, i, 0);
  REQUIRE_FALSE(q.empty());
  CHECK(q.peek_ahead(0) == &q.top());
  for (std::uint32_t i = 0; i < 5; ++i) {
    REQUIRE_FALSE(q.empty());
    CHECK(q.top().client == i);
    CHECK(q.peek_ahead(1) == nullptr);  // each event is alone in its bucket
    q.pop();
  }
  CHECK(q.empty());
}
