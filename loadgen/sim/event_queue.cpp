#include "sim/event_queue.hpp"

#include <algorithm>
#include <utility>

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

// Small buckets sort fastest by insertion.
constexpr std::size_t kInsertionSortMax = 32;

void insertion_sort_by_time(std::vector<TimedEvent>& v) {
  for (std::size_t i = 1; i < v.size(); ++i) {
    const TimedEvent e = v[i];
    std::size_t j = i;
    for (; j > 0 && v[j - 1].t_ns > e.t_ns; --j) v[j] = v[j - 1];
    v[j] = e;
  }
}

}  // namespace

// Stable, so equal times keep their push order. A least-significant-digit radix sort on the time
// within the bucket, two digits of half its bits each: linear, where a comparison sort of the
// thousand-event buckets of a retry wave took a tenth of the run.
void EventQueue::sort_by_time(std::vector<TimedEvent>& v, std::vector<TimedEvent>& scratch,
                              std::int64_t bucket_start_ns) {
  if (v.size() <= kInsertionSortMax) {
    insertion_sort_by_time(v);
    return;
  }
  constexpr int kDigitBits = kFineShift / 2;
  constexpr std::size_t kRadix = std::size_t{1} << kDigitBits;
  static_assert(2 * kDigitBits == kFineShift, "two digits cover the time within a bucket");
  std::array<std::size_t, kRadix> low{};
  std::array<std::size_t, kRadix> high{};
  const auto offset = [&](const TimedEvent& e) {
    return static_cast<std::size_t>(e.t_ns - bucket_start_ns);
  };
  for (const TimedEvent& e : v) {
    ++low[offset(e) & (kRadix - 1)];
    ++high[offset(e) >> kDigitBits];
  }
  std::size_t low_sum = 0;
  std::size_t high_sum = 0;
  for (std::size_t d = 0; d < kRadix; ++d) {
    low_sum += std::exchange(low[d], low_sum);
    high_sum += std::exchange(high[d], high_sum);
  }
  scratch.resize(v.size());
  for (const TimedEvent& e : v) scratch[low[offset(e) & (kRadix - 1)]++] = e;
  for (const TimedEvent& e : scratch) v[high[offset(e) >> kDigitBits]++] = e;
  clear_and_trim(scratch);
}

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
      sort_by_time(batch_, scratch_, fine_ << kFineShift);
      return true;
    }
    if (!open_next_coarse()) return false;
  }
}

}  // namespace stampede
