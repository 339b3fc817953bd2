#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

namespace stampede {

// When each connection's request came in, noted by something that does not wait for the
// server's loops: they read a request only when they get to it, maybe after answering a few
// thousand others. The kernel's receive stamps (ReceiveStamps) or a watcher thread
// (ArrivalStamper) note it.
class ArrivalStamps {
 public:
  virtual ~ArrivalStamps() = default;
  // A new connection: forget whatever an earlier socket with this number left.
  virtual void watch(int fd) = 0;
  // A read of fd's bytes, which some stamps need to see (the kernel's come with the read).
  virtual ssize_t receive(int fd, void* buf, std::size_t len) { return recv(fd, buf, len, 0); }
  // When bytes first came in on fd since its last answer (steady_clock ns), or 0 if they were
  // not noted. Bytes that came before the answer (a body) do not count.
  virtual std::int64_t take(int fd) = 0;
  // Like take, without taking: when the next request's first bytes came in, or 0.
  virtual std::int64_t pending_since(int fd) const = 0;
  // The connection's request is answered now: what comes next is the next request.
  virtual void answered(int fd) = 0;
};

}  // namespace stampede
