#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace stampede {

// A thread of its own that handles what was put since it last looked, all at once: while it
// handles one batch, the next gathers. Items are handed over in the order they were put.
template <class T>
class BatchThread {
 public:
  using Handler = std::function<void(std::vector<T>& batch)>;
  explicit BatchThread(Handler handle) : handle_(std::move(handle)), thread_([this] { run(); }) {}
  // Handles what was put before, then stops.
  ~BatchThread() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  BatchThread(const BatchThread&) = delete;
  BatchThread& operator=(const BatchThread&) = delete;

  void put(T item) {
    bool idle = false;
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(item));
      idle = std::exchange(idle_, false);
    }
    // Only a waiting thread needs waking: a busy one looks again when its batch is done.
    if (idle) cv_.notify_one();
  }

 private:
  void run() {
    std::vector<T> batch;
    std::unique_lock lock(mu_);
    while (true) {
      if (queue_.empty()) {
        if (stopping_) return;
        idle_ = true;
        cv_.wait(lock, [this] { return !queue_.empty() || stopping_; });
        idle_ = false;
        continue;
      }
      batch.swap(queue_);
      lock.unlock();
      handle_(batch);
      batch.clear();
      lock.lock();
    }
  }

  const Handler handle_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<T> queue_;
  bool idle_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace stampede
