#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "server/arrival_stamps.hpp"

namespace stampede {

// Notes when each connection's socket becomes readable, on a thread that does nothing else
// (--arrival-stamp watch). It sleeps almost always, so the scheduler runs it at once, and the
// time it notes is when the request's bytes came in, whatever the loops are doing; for a
// poll of each edge and a wake every 0.5 ms under load.
class ArrivalStamper final : public ArrivalStamps {
 public:
  // max_fd: descriptors at or above it are never watched.
  explicit ArrivalStamper(int max_fd);
  ~ArrivalStamper() override;
  ArrivalStamper(const ArrivalStamper&) = delete;
  ArrivalStamper& operator=(const ArrivalStamper&) = delete;

  void watch(int fd) override;
  // 0 also when this thread has not seen the bytes yet.
  std::int64_t take(int fd) override;
  std::int64_t pending_since(int fd) const override;
  void answered(int fd) override;

 private:
  struct Slot {
    std::atomic<std::int64_t> seen_ns{0};
    std::atomic<std::int64_t> answered_ns{0};
  };
  void run();

  int max_fd_;
  std::unique_ptr<Slot[]> slots_;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;
  std::thread thread_;
};

}  // namespace stampede
