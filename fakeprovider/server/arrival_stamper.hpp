#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

namespace stampede {

// Notes when each connection's socket becomes readable, on a thread that does nothing else.
// The server's loops read a request only when they get to it, maybe after answering a few
// thousand others; this thread sleeps almost always, so the scheduler runs it at once, and
// the time it notes is when the request's bytes came in, whatever the loops are doing.
class ArrivalStamper {
 public:
  // max_fd: descriptors at or above it are never watched.
  explicit ArrivalStamper(int max_fd);
  ~ArrivalStamper();
  ArrivalStamper(const ArrivalStamper&) = delete;
  ArrivalStamper& operator=(const ArrivalStamper&) = delete;

  // A new connection: forget whatever an earlier socket with this number left.
  void watch(int fd);
  // When bytes first came in on fd since its last answer (steady_clock ns), or 0 if this
  // thread has not seen them yet. Bytes that came before the answer (a body) do not count.
  std::int64_t take(int fd);
  // Like take, without taking: when the next request's first bytes came in, or 0.
  std::int64_t pending_since(int fd) const;
  // The connection's request is answered now: what comes next is the next request.
  void answered(int fd, std::int64_t steady_ns);

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
