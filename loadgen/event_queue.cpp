#include "event_queue.hpp"

#include <algorithm>

namespace stampede {

EventQueue::EventQueue() : ring_(kRingBuckets) {}

void EventQueue::push(std::int64_t t_ns, std::uint32_t client, std::uint8_t kind) {
  const TimedEvent e{t_ns, seq_++, client, kind};
  const std::int64_t b = t_ns >> kBucketShift;
  if (b <= bucket_) {
    late_.push(e);
  } else if (b < bucket_ + kRingBuckets) {
    ring_[static_cast<std::size_t>(b & (kRingBuckets - 1))].push_back(e);
    ++ring_count_;
  } else {
    overflow_.push(e);
  }
}

void EventQueue::migrate_overflow() {
  while (!overflow_.empty() && (overflow_.top().t_ns >> kBucketShift) < bucket_ + kRingBuckets) {
    const TimedEvent& e = overflow_.top();
    ring_[static_cast<std::size_t>((e.t_ns >> kBucketShift) & (kRingBuckets - 1))].push_back(e);
    ++ring_count_;
    overflow_.pop();
  }
}

bool EventQueue::open_next_bucket() {
  batch_.clear();
  batch_pos_ = 0;
  ++bucket_;
  for (;;) {
    migrate_overflow();
    auto& slot = ring_[static_cast<std::size_t>(bucket_ & (kRingBuckets - 1))];
    if (!slot.empty()) {
      batch_.swap(slot);
      ring_count_ -= batch_.size();
      std::sort(batch_.begin(), batch_.end());
      return true;
    }
    if (ring_count_ == 0) {
      if (overflow_.empty()) return false;
      bucket_ = overflow_.top().t_ns >> kBucketShift;  // skip the empty stretch at once
    } else {
      ++bucket_;
    }
  }
}

bool EventQueue::empty() {
  while (batch_pos_ == batch_.size() && late_.empty()) {
    if (!open_next_bucket()) return true;
  }
  return false;
}

const TimedEvent& EventQueue::top() {
  if (batch_pos_ == batch_.size()) return late_.top();
  if (late_.empty() || batch_[batch_pos_] < late_.top()) return batch_[batch_pos_];
  return late_.top();
}

void EventQueue::pop() {
  if (batch_pos_ < batch_.size() && (late_.empty() || batch_[batch_pos_] < late_.top())) {
    ++batch_pos_;
  } else {
    late_.pop();
  }
}

}  // namespace stampede
