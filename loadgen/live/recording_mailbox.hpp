#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "results.hpp"

namespace stampede {

// A copy of one loop's recording, made on the loop's own thread when another thread asks for
// one (loadgen run --dashboard's events and its "save"): the loop takes no lock and copies
// nothing unless asked, and the asker never reads what the loop is writing.
class RecordingMailbox {
 public:
  // Any thread: asks for a copy; the ticket to take it with.
  std::uint64_t ask();
  // The loop's thread: a copy is asked for that it has not made yet (one atomic load).
  bool asked() const { return asked_.load(std::memory_order_acquire) != served_; }
  // The loop's thread: the copy asked for. final: the loop has ended, and this copy answers
  // every ask after it.
  void serve(const Recording& recording, bool final = false);
  // Any thread: the copy for a ticket, waiting up to wait_ns for the loop to make it; none if
  // it did not in time.
  std::optional<Recording> take(std::uint64_t ticket, std::int64_t wait_ns);

 private:
  std::atomic<std::uint64_t> asked_{0};
  std::uint64_t served_ = 0;  // the loop's thread only
  std::mutex mu_;
  std::condition_variable cv_;
  Recording copy_;
  std::uint64_t copy_ticket_ = 0;
  bool final_ = false;
};

}  // namespace stampede
