#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace stampede {

// Values taken earliest time first, and in the order they came when their times are equal: a
// trace's records and arrivals are sorted within a bounded window without reordering ties.
// A trace is mostly in order already: what comes no earlier than the last in order is queued
// as it came, and only what comes earlier goes through a heap.
template <class T>
class TimeHeap {
 public:
  void push(std::int64_t t_ns, T value) {
    Entry e{t_ns, order_++, std::move(value)};
    if (in_order_.empty() || t_ns >= in_order_.back().t_ns) {
      in_order_.push_back(std::move(e));
      return;
    }
    out_of_order_.push_back(std::move(e));
    std::push_heap(out_of_order_.begin(), out_of_order_.end(), later);
  }
  bool empty() const { return in_order_.empty() && out_of_order_.empty(); }
  std::int64_t earliest_ns() const { return next().t_ns; }
  T pop() {
    if (from_heap()) {
      std::pop_heap(out_of_order_.begin(), out_of_order_.end(), later);
      T value = std::move(out_of_order_.back().value);
      out_of_order_.pop_back();
      return value;
    }
    T value = std::move(in_order_.front().value);
    in_order_.pop_front();
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
  bool from_heap() const {
    return !out_of_order_.empty() &&
           (in_order_.empty() || later(in_order_.front(), out_of_order_.front()));
  }
  const Entry& next() const { return from_heap() ? out_of_order_.front() : in_order_.front(); }

  std::deque<Entry> in_order_;       // by time, as they came
  std::vector<Entry> out_of_order_;  // a heap, earliest first
  std::int64_t order_ = 0;
};

}  // namespace stampede
