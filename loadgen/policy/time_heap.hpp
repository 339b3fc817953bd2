#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace stampede {

// Values taken earliest time first, and in the order they came when their times are equal: a
// trace's records and arrivals are sorted within a bounded window without reordering ties.
template <class T>
class TimeHeap {
 public:
  void push(std::int64_t t_ns, T value) {
    entries_.push_back({t_ns, order_++, std::move(value)});
    std::push_heap(entries_.begin(), entries_.end(), later);
  }
  bool empty() const { return entries_.empty(); }
  std::int64_t earliest_ns() const { return entries_.front().t_ns; }
  T pop() {
    std::pop_heap(entries_.begin(), entries_.end(), later);
    T value = std::move(entries_.back().value);
    entries_.pop_back();
    return value;
  }

 private:
  struct Entry {
    std::int64_t t_ns;
    std::int64_t order;
    T value;
  };
  static bool later(const Entry& a, const Entry& b) {
    return a.t_ns != b.t_ns ? a.t_ns > b.t_ns : a.order > b.order;
  }

  std::vector<Entry> entries_;
  std::int64_t order_ = 0;
};

}  // namespace stampede
