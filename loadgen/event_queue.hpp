#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace stampede {

struct TimedEvent {
  std::int64_t t_ns;
  std::uint64_t seq;  // ties at one instant go in the order they were scheduled
  std::uint32_t client;
  std::uint8_t kind;

  bool operator>(const TimedEvent& o) const { return t_ns != o.t_ns ? t_ns > o.t_ns : seq > o.seq; }
  bool operator<(const TimedEvent& o) const { return o > *this; }
};

// The simulator's agenda: pops events in (time, scheduling order), the same total order a
// binary heap gives, but as a calendar of ~1 ms buckets. A heap of a million pending sends
// misses the cache on every operation; here a push is an append and each bucket is sorted
// once when its turn comes. Times never go backwards: a push is at or after the last pop.
class EventQueue {
 public:
  EventQueue();

  void push(std::int64_t t_ns, std::uint32_t client, std::uint8_t kind);
  bool empty();
  // The next event; only when !empty().
  const TimedEvent& top();
  void pop();

 private:
  static constexpr int kBucketShift = 20;                // 2^20 ns, about a millisecond
  static constexpr std::int64_t kRingBuckets = 1 << 16;  // about 69 s ahead

  bool open_next_bucket();
  void migrate_overflow();

  std::vector<std::vector<TimedEvent>> ring_;
  std::size_t ring_count_ = 0;
  // Beyond the ring's reach; moved into it as time comes closer.
  std::priority_queue<TimedEvent, std::vector<TimedEvent>, std::greater<>> overflow_;
  std::vector<TimedEvent> batch_;  // the open bucket, sorted
  std::size_t batch_pos_ = 0;
  // Pushed into the open bucket while it drains (zero or tiny delays).
  std::priority_queue<TimedEvent, std::vector<TimedEvent>, std::greater<>> late_;
  std::int64_t bucket_ = -1;
  std::uint64_t seq_ = 0;
};

}  // namespace stampede
