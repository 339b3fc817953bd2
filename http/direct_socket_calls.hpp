#pragma once

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

namespace stampede {

// A data plane's reads and writes, straight to the kernel. The C library's recvmsg() and
// send() are cancellation points: every call enters and leaves the thread library's
// asynchronous-cancel state, 1.4-1.7% of a loop's samples at 200,000 requests a second, and no
// thread of ours is ever cancelled. Under ThreadSanitizer the library's are kept: it intercepts
// them to see what one thread hands another through a socket.
#if defined(__SANITIZE_THREAD__)
inline ssize_t direct_recvmsg(int fd, msghdr& msg, int flags) {
  return recvmsg(fd, &msg, flags);
}
inline ssize_t direct_send(int fd, const void* buf, std::size_t len, int flags) {
  return send(fd, buf, len, flags);
}
#else
inline ssize_t direct_recvmsg(int fd, msghdr& msg, int flags) {
  return syscall(SYS_recvmsg, fd, &msg, flags);
}
inline ssize_t direct_send(int fd, const void* buf, std::size_t len, int flags) {
  return syscall(SYS_sendto, fd, buf, len, flags, nullptr, 0);
}
#endif

}  // namespace stampede
