#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace stampede {

// Runs callbacks at their deadlines (steady_clock ns) on one thread of its own: the data
// plane's network hops, decided in deadline order whichever loop read them.
class DeadlineTimer {
 public:
  DeadlineTimer();
  ~DeadlineTimer();
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  void schedule(std::int64_t deadline_steady_ns, std::function<void()> fn);
  // Runs every pending callback now, whatever its deadline: the last step of a shutdown.
  void fire_all();

 private:
  struct Entry {
    std::int64_t deadline_ns;
    std::uint64_t seq;  // first scheduled, first run among equal deadlines
    std::function<void()> fn;
    bool operator>(const Entry& o) const {
      return deadline_ns != o.deadline_ns ? deadline_ns > o.deadline_ns : seq > o.seq;
    }
  };
  void run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  std::uint64_t next_seq_ = 0;
  bool stopping_ = false;
  bool flush_ = false;
  std::thread thread_;
};

}  // namespace stampede
