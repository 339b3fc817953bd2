#pragma once

#include <array>
#include <cstdint>
#include <queue>
#include <vector>

namespace stampede {

// 16 bytes, four to a cache line. It carries no sequence number: ties at one instant go in
// the order they were pushed, which the queue keeps by appending and sorting stably.
struct TimedEvent {
  std::int64_t t_ns;
  std::uint32_t client;
  std::uint8_t kind;
};

// The simulator's agenda: pops events in (time, push order), the same total order as a binary
// heap on (time, sequence number), as a two-level calendar. A push appends to one of 1,024
// coarse buckets (~67 ms each, ~69 s ahead), whose tails stay in cache, instead of to a random
// one of tens of thousands of fine buckets, which misses it. A coarse bucket is split into 64
// fine buckets (~1 ms) when its turn comes, and each fine bucket is sorted once when it opens.
// Times never go backwards: a push is at or after the last pop.
class EventQueue {
 public:
  EventQueue();

  void push(std::int64_t t_ns, std::uint32_t client, std::uint8_t kind) {
    const std::int64_t fine = t_ns >> kFineShift;
    const std::int64_t coarse = t_ns >> kCoarseShift;
    const TimedEvent e{t_ns, client, kind};
    if (fine <= fine_) {
      late_.push({e, seq_++});
    } else if (coarse == coarse_) {
      fine_slots_[static_cast<std::size_t>(fine & (kFinePerCoarse - 1))].push_back(e);
    } else if (coarse < coarse_ + kCoarseBuckets) {
      coarse_slots_[static_cast<std::size_t>(coarse & (kCoarseBuckets - 1))].push_back(e);
      ++coarse_count_;
    } else {
      overflow_.push({e, seq_++});
    }
  }

  bool empty() { return batch_pos_ == batch_.size() && late_.empty() && !open_next_fine(); }

  // The next event; only when !empty().
  const TimedEvent& top() const { return from_batch() ? batch_[batch_pos_] : late_.top().event; }

  void pop() {
    if (from_batch()) {
      ++batch_pos_;
    } else {
      late_.pop();
    }
  }

  // The event `ahead` places after top() in the open fine bucket, or nullptr past its end (late
  // pushes not counted): lets the caller prefetch what the coming events will touch.
  const TimedEvent* peek_ahead(std::size_t ahead) const {
    const std::size_t i = batch_pos_ + ahead;
    return i < batch_.size() ? &batch_[i] : nullptr;
  }

  // Whether nothing of the open fine bucket has been popped yet: the caller's cue to prefetch
  // for its first events all at once.
  bool at_bucket_start() const { return batch_pos_ == 0; }

 private:
  static constexpr int kFineShift = 20;    // 2^20 ns, about a millisecond
  static constexpr int kCoarseShift = 26;  // 2^26 ns, about 67 ms
  static constexpr std::int64_t kFinePerCoarse = std::int64_t{1} << (kCoarseShift - kFineShift);
  static constexpr std::int64_t kCoarseBuckets = 1 << 10;  // about 69 s ahead

  // Pushed out of the calendar's order (into the open fine bucket, or beyond the ring): these
  // need their push order spelled out.
  struct Numbered {
    TimedEvent event;
    std::uint64_t seq;
    bool operator>(const Numbered& o) const {
      return event.t_ns != o.event.t_ns ? event.t_ns > o.event.t_ns : seq > o.seq;
    }
  };
  using MinHeap = std::priority_queue<Numbered, std::vector<Numbered>, std::greater<>>;

  // Everything in the batch was pushed before anything in late_, so the batch wins ties.
  bool from_batch() const {
    return batch_pos_ < batch_.size() &&
           (late_.empty() || batch_[batch_pos_].t_ns <= late_.top().event.t_ns);
  }

  static void sort_by_time(std::vector<TimedEvent>& v, std::vector<TimedEvent>& scratch,
                           std::int64_t bucket_start_ns);
  bool open_next_fine();
  bool open_next_coarse();
  void migrate_overflow();

  std::vector<std::vector<TimedEvent>> coarse_slots_;
  std::size_t coarse_count_ = 0;                                    // events in coarse_slots_
  std::array<std::vector<TimedEvent>, kFinePerCoarse> fine_slots_;  // of the open coarse bucket
  MinHeap overflow_;                 // beyond the ring's reach; moved into it as time comes closer
  std::vector<TimedEvent> batch_;    // the open fine bucket, sorted
  std::vector<TimedEvent> scratch_;  // for sorting it
  std::size_t batch_pos_ = 0;
  MinHeap late_;  // pushed into the open fine bucket while it drains (zero or tiny delays)
  std::int64_t coarse_ = -1;  // the open coarse bucket
  std::int64_t fine_ = -1;    // the open fine bucket (absolute index)
  std::uint64_t seq_ = 0;
};

}  // namespace stampede
