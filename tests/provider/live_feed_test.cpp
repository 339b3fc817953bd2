// The live feed with a stream that never reads: a hundred events on, the feed holds the same
// sixteen it keeps for every stream, and the stream is told it is behind, not queued for.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <string>

#include "server/live_feed.hpp"
#include "support/process.hpp"

using namespace stampede;

TEST_CASE("live feed: a stream a hundred events behind costs no more than the sixteen kept") {
  std::atomic<int> reads{0};
  // An event a millisecond, each from a snapshot a scenario second on.
  LiveFeed feed(
      [&reads] {
        LiveSnapshot s;
        s.clock_ns = std::int64_t{reads.fetch_add(1) + 1} * 1'000'000'000;
        return s;
      },
      1'000'000);
  feed.start();
  const auto stalled = feed.subscribe();
  REQUIRE(stalled);
  // A bound on the wait, not a threshold: the feed's thread makes them as it gets the CPU.
  REQUIRE(support::wait_until([&] { return reads.load() > 100; }, 60'000));
  const auto usage = feed.usage();
  CHECK(usage.streams == 1);
  CHECK(usage.kept_events == LiveFeed::kKept);
  // A new stream's first event holds every bin (here none, as in every event): the kept ones
  // are no bigger but for a digit or two of their numbers.
  const auto reference = feed.subscribe();
  REQUIRE(reference);
  CHECK(usage.kept_bytes <= LiveFeed::kKept * (reference->first.size() + 16));
  // The stalled one is behind: its stream ends rather than wait for what was not kept.
  std::shared_ptr<const std::string> old;
  CHECK(feed.next(stalled->next_seq, old, 0) == LiveFeed::Next::kBehind);
  CHECK_FALSE(old);
  feed.unsubscribe();
  feed.unsubscribe();
  feed.stop();
}
