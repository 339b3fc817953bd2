#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace stampede {

// A queue in one ring that doubles when full: once it holds a window's worth it allocates no
// more (a deque of entries this size allocates a block every few).
template <class T>
class Ring {
 public:
  bool empty() const { return size_ == 0; }
  const T& front() const { return slots_[head_]; }
  T& front() { return slots_[head_]; }
  const T& back() const { return slots_[(head_ + size_ - 1) & (slots_.size() - 1)]; }
  // The slot a value is moved into in place (pushed back): one move a value, not three.
  T& push_back() {
    if (size_ == slots_.size()) grow();
    return slots_[(head_ + size_++) & (slots_.size() - 1)];
  }
  void pop_front() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(std::max<std::size_t>(16, slots_.size() * 2));  // a power of two
    for (std::size_t i = 0; i < size_; ++i)
      bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

// Values taken earliest time first, and in the order they came when their times are equal: a
// trace's records and arrivals are sorted within a bounded window without reordering ties.
// A trace is mostly in order already: what comes no earlier than the last in order is queued
// as it came, and only what comes earlier goes through a heap.
template <class T>
class TimeHeap {
 public:
  void push(std::int64_t t_ns, T&& value) {
    if (in_order_.empty() || t_ns >= in_order_.back().t_ns) {
      Entry& e = in_order_.push_back();
      e.t_ns = t_ns;
      e.order = order_++;
      e.value = std::move(value);
      return;
    }
    out_of_order_.push_back({t_ns, order_++, std::move(value)});
    std::push_heap(out_of_order_.begin(), out_of_order_.end(), later);
  }
  bool empty() const { return in_order_.empty() && out_of_order_.empty(); }
  std::int64_t earliest_ns() const { return next().t_ns; }
  // The earliest value, moved once (into the optional its taker returns): a record carrying
  // strings is moved as few times as it can be.
  std::optional<T> pop() {
    std::optional<T> value;
    if (from_heap()) {
      std::pop_heap(out_of_order_.begin(), out_of_order_.end(), later);
      value.emplace(std::move(out_of_order_.back().value));
      out_of_order_.pop_back();
      return value;
    }
    value.emplace(std::move(in_order_.front().value));
    in_order_.pop_front();
    return value;
  }

 private:
  struct Entry {
    std::int64_t t_ns = 0;
    std::int64_t order = 0;
    T value{};
  };
  static bool later(const Entry& a, const Entry& b) {
    return a.t_ns != b.t_ns ? a.t_ns > b.t_ns : a.order > b.order;
  }
  bool from_heap() const {
    return !out_of_order_.empty() &&
           (in_order_.empty() || later(in_order_.front(), out_of_order_.front()));
  }
  const Entry& next() const { return from_heap() ? out_of_order_.front() : in_order_.front(); }

  Ring<Entry> in_order_;             // by time, as they came
  std::vector<Entry> out_of_order_;  // a heap, earliest first
  std::int64_t order_ = 0;
};

}  // namespace stampede
