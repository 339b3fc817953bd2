#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

namespace stampede {

// What one loop waits out itself (a service time, a stream's next token): items by their due
// time (steady ns), first pushed first among equal times. One thread's: no lock, no hand-off,
// so an item comes back on the loop's next turn past its time instead of a timer thread's
// wake, a locked queue and an eventfd for each.
template <typename T>
class DueQueue {
 public:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

  void push(std::int64_t due_ns, T item) { heap_.push({due_ns, next_seq_++, std::move(item)}); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // The earliest due time; kNone when nothing waits.
  std::int64_t next_due() const { return heap_.empty() ? kNone : heap_.top().due_ns; }
  // Moves every item due at or before now_ns to out, in due order; all of them with
  // kNone, as a stop does.
  void take_due(std::int64_t now_ns, std::vector<T>& out) {
    while (!heap_.empty() && heap_.top().due_ns <= now_ns) {
      out.push_back(std::move(const_cast<Entry&>(heap_.top()).item));
      heap_.pop();
    }
  }

 private:
  struct Entry {
    std::int64_t due_ns;
    std::uint64_t seq;
    T item;
    bool operator>(const Entry& o) const {
      return due_ns != o.due_ns ? due_ns > o.due_ns : seq > o.seq;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace stampede
