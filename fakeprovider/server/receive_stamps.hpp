#pragma once

#include <cstdint>
#include <memory>

#include "server/arrival_stamps.hpp"

namespace stampede {

// Stamps a request with the kernel's receive stamp of its first bytes (SO_TIMESTAMPNS, as
// loadgen stamps answers): when they reached the socket, however late a loop reads them, for
// no thread and no system call beyond the read itself (--arrival-stamp kernel, the default).
// The server's reads of a watched connection are recvmsg() calls (receive), which bring the
// stamp.
//
// The stamps live in one table, indexed by descriptor. A connection is watched on the thread
// that accepts it, then read, stamped and answered on one loop's thread at a time.
class ReceiveStamps final : public ArrivalStamps {
 public:
  ReceiveStamps();
  ~ReceiveStamps() override;
  ReceiveStamps(const ReceiveStamps&) = delete;
  ReceiveStamps& operator=(const ReceiveStamps&) = delete;

  // Also asks the kernel to stamp what comes in on fd.
  void watch(int fd) override;
  ssize_t receive(int fd, void* buf, std::size_t len) override;
  std::int64_t take(int fd) override;
  std::int64_t pending_since(int fd) const override;
  void answered(int fd) override;

 private:
  struct Slot;
  Slot* slot_of(int fd) const;

  Slot* slots_ = nullptr;
  int size_ = 0;
};

}  // namespace stampede
