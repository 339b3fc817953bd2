#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace stampede {

// Two counters over a trailing window, kept in kSlots slots of window/kSlots each: O(1) memory
// per client, the window's edge exact to one slot.
class TrailingCounts {
 public:
  static constexpr std::int64_t kSlots = 16;

  explicit TrailingCounts(std::int64_t window_ns)
      : slot_ns_(std::max<std::int64_t>(1, window_ns / kSlots)) {}

  void add(std::int64_t now_ns, int counter) {
    advance(now_ns);
    ++slots_[static_cast<std::size_t>(head_ % kSlots)][counter];
  }

  std::int64_t total(std::int64_t now_ns, int counter) {
    advance(now_ns);
    std::int64_t sum = 0;
    for (const auto& slot : slots_) sum += slot[counter];
    return sum;
  }

 private:
  // Moves the head to now's slot, emptying the slots that fell out of the window. A time
  // before the head counts in the head's slot.
  void advance(std::int64_t now_ns) {
    const std::int64_t slot = now_ns / slot_ns_;
    const std::int64_t steps = std::min(slot - head_, kSlots);
    for (std::int64_t i = 1; i <= steps; ++i)
      slots_[static_cast<std::size_t>((head_ + i) % kSlots)] = {0, 0};
    head_ = std::max(head_, slot);
  }

  std::int64_t slot_ns_;
  std::int64_t head_ = 0;
  std::array<std::array<std::int32_t, 2>, kSlots> slots_{};
};

}  // namespace stampede
