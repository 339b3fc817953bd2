#include "event_queue.hpp"

#include <algorithm>

namespace stampede {
namespace {

// Past this a drained bucket gives its memory back: a million events landing in one bucket
// (every client's first send at t=0) should not stay reserved for the whole run.
constexpr std::size_t kKeepCapacity = std::size_t{1} << 13;

void clear_and_trim(std::vector<TimedEvent>& v) {
  if (v.capacity() > kKeepCapacity) {
    std::vector<TimedEvent>().swap(v);
  } else {
    v.clear();
  }
}

}  // namespace

EventQueue::EventQueue() : coarse_slots_(kCoarseBuckets) {}

void EventQueue::migrate_overflow() {
  // In (time, push order), and before any push can reach the same bucket directly, so each
  // coarse bucket stays in push order for the events of equal time.
  while (!overflow_.empty() &&
         (overflow_.top().event.t_ns >> kCoarseShift) < coarse_ + kCoarseBuckets) {
    const TimedEvent& e = overflow_.top().event;
    coarse_slots_[static_cast<std::size_t>((e.t_ns >> kCoarseShift) & (kCoarseBuckets - 1))]
        .push_back(e);
    ++coarse_count_;
    overflow_.pop();
  }
}

// Opens the next non-empty coarse bucket and deals its events out to the fine buckets, keeping
// their order. False when nothing is left.
bool EventQueue::open_next_coarse() {
  for (;;) {
    if (coarse_count_ == 0) {
      if (overflow_.empty()) return false;
      // Skip the empty stretch at once.
      coarse_ = std::max(coarse_ + 1, (overflow_.top().event.t_ns >> kCoarseShift));
    } else {
      ++coarse_;
    }
    migrate_overflow();
    auto& slot = coarse_slots_[static_cast<std::size_t>(coarse_ & (kCoarseBuckets - 1))];
    fine_ = coarse_ * kFinePerCoarse - 1;
    if (slot.empty()) continue;
    coarse_count_ -= slot.size();
    for (const TimedEvent& e : slot) {
      fine_slots_[static_cast<std::size_t>((e.t_ns >> kFineShift) & (kFinePerCoarse - 1))]
          .push_back(e);
    }
    clear_and_trim(slot);
    return true;
  }
}

// Called with the batch drained and nothing late: opens the next non-empty fine bucket.
bool EventQueue::open_next_fine() {
  for (;;) {
    while (fine_ + 1 < (coarse_ + 1) * kFinePerCoarse) {
      ++fine_;
      auto& slot = fine_slots_[static_cast<std::size_t>(fine_ & (kFinePerCoarse - 1))];
      if (slot.empty()) continue;
      clear_and_trim(batch_);
      batch_.swap(slot);
      batch_pos_ = 0;
      // Stable: equal times keep their push order.
      std::stable_sort(batch_.begin(), batch_.end(),
                       [](const TimedEvent& a, const TimedEvent& b) { return a.t_ns < b.t_ns; });
      return true;
    }
    if (!open_next_coarse()) return false;
  }
}

}  // namespace stampede
