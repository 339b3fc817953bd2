#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace stampede {

// Which client's send is due next, on the wall (steady clock, ns). A client waits on at most
// one entry at a time, so nothing is ever cancelled: a stopped run drops the whole heap.
class TimerHeap {
 public:
  struct Entry {
    std::int64_t due_ns;
    std::uint64_t seq;  // equal due times pop in the order they were pushed
    std::uint32_t client;

    bool operator>(const Entry& o) const {
      return due_ns != o.due_ns ? due_ns > o.due_ns : seq > o.seq;
    }
  };

  // Room for n entries, taken and touched now: a heap that grows in a storm copies itself and
  // faults its new pages in while sends fall due.
  void reserve(std::size_t n) {
    std::vector<Entry> room(n);
    room.clear();
    heap_ = decltype(heap_)(std::greater<>{}, std::move(room));
  }
  void push(std::int64_t due_ns, std::uint32_t client) { heap_.push({due_ns, seq_++, client}); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Entry& top() const { return heap_.top(); }
  void pop() { heap_.pop(); }
  void clear() { heap_ = {}; }

 private:
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace stampede
