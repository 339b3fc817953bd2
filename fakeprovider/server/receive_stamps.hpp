#pragma once

#include <cstdint>

#include "server/arrival_stamps.hpp"

namespace stampede {

// Stamps a request with the kernel's receive stamp of its first bytes (SO_TIMESTAMPNS, as
// loadgen stamps answers): when they reached the socket, however late a loop reads them, for
// no thread and no system call beyond the read itself (--arrival-stamp kernel, the default).
//
// libmicrohttpd reads its connections with recv(), which brings no stamp, and offers no hook
// for the read. So receive_stamps.cpp defines recv() for the whole process: libmicrohttpd's
// reads of a watched connection are made with recvmsg(), which brings the stamp; any other
// socket's recv() is the one it stands in front of (the C library's, or a sanitizer's).
//
// The stamps live in one table per process, indexed by descriptor, made on first use and
// never freed: a recv() on any thread may look in it at any time. A connection is read, stamped
// and answered on one loop's thread at a time.
class ReceiveStamps final : public ArrivalStamps {
 public:
  ReceiveStamps();
  ReceiveStamps(const ReceiveStamps&) = delete;
  ReceiveStamps& operator=(const ReceiveStamps&) = delete;

  // Also asks the kernel to stamp what comes in on fd.
  void watch(int fd) override;
  std::int64_t take(int fd) override;
  std::int64_t pending_since(int fd) const override;
  void answered(int fd) override;
};

}  // namespace stampede
