#include "server/deadline_timer.hpp"

#include <chrono>

#include "scenario_clock.hpp"

namespace stampede {

DeadlineTimer::DeadlineTimer() : thread_([this] { run(); }) {}

DeadlineTimer::~DeadlineTimer() {
  fire_all();
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void DeadlineTimer::schedule(std::int64_t deadline_steady_ns, std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    queue_.push({deadline_steady_ns, next_seq_++, std::move(fn)});
  }
  cv_.notify_one();
}

void DeadlineTimer::fire_all() {
  {
    std::lock_guard lock(mu_);
    flush_ = true;
  }
  cv_.notify_one();
}

void DeadlineTimer::run() {
  std::unique_lock lock(mu_);
  while (true) {
    if (queue_.empty()) {
      if (stopping_) return;
      cv_.wait(lock);
      continue;
    }
    const std::int64_t now_ns = ScenarioClock::steady_ns();
    if (!flush_ && queue_.top().deadline_ns > now_ns) {
      cv_.wait_for(lock, std::chrono::nanoseconds(queue_.top().deadline_ns - now_ns));
      continue;
    }
    auto fn = std::move(const_cast<Entry&>(queue_.top()).fn);
    queue_.pop();
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace stampede
