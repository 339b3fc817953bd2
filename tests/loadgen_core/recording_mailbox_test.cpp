// A loop's recording copied for another thread on the loop's own thread: a copy only when
// asked, the newest for each ticket, and every ask answered once the loop has ended.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "live/recording_mailbox.hpp"

using namespace stampede;

TEST_CASE("recording mailbox: nothing copied unasked; each ticket gets a copy made after it") {
  RecordingMailbox box;
  CHECK_FALSE(box.asked());
  Recording r;
  r.delivered = 1;
  const auto ticket = box.ask();
  CHECK(box.asked());
  // Not served yet: the asker waits its bound, then has none.
  CHECK_FALSE(box.take(ticket, 1'000'000));
  box.serve(r);
  CHECK_FALSE(box.asked());
  const auto copy = box.take(ticket, 0);
  REQUIRE(copy);
  CHECK(copy->delivered == 1);
  // A later ticket is not answered by the earlier copy.
  const auto later = box.ask();
  CHECK_FALSE(box.take(later, 1'000'000));
}

TEST_CASE("recording mailbox: a loop's thread serves an ask made from another thread") {
  RecordingMailbox box;
  std::atomic<bool> done{false};
  std::thread loop([&] {
    Recording r;
    while (!done.load()) {
      ++r.delivered;  // the loop's own writes, never read by the asker
      if (box.asked()) box.serve(r);
      std::this_thread::yield();
    }
  });
  const auto ticket = box.ask();
  // A bound on the wait, not a threshold: the loop answers at its next turn.
  const auto copy = box.take(ticket, 30'000'000'000LL);
  done = true;
  loop.join();
  REQUIRE(copy);
  CHECK(copy->delivered > 0);
}

TEST_CASE("recording mailbox: once the loop has ended, its last copy answers every ask") {
  RecordingMailbox box;
  Recording r;
  r.dead_lettered = 3;
  box.serve(r, true);
  const auto ticket = box.ask();
  const auto copy = box.take(ticket, 0);
  REQUIRE(copy);
  CHECK(copy->dead_lettered == 3);
}
