#include "server/receive_stamps.hpp"

#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "direct_socket_calls.hpp"
#include "receive_stamp.hpp"

namespace stampede {
namespace {

// A descriptor's stamp: that of the first read since its last answer, kept until taken.
struct Slot {
  std::int64_t seen_ns = 0;
  std::int32_t watched = 0;
  std::int32_t armed = 0;  // the next stamped read is a new request's first
};

// Allocated zeroed and never touched until used, so the hard limit's worth of slots costs only
// the pages of the descriptors in use.
std::atomic<Slot*> g_slots{nullptr};
std::atomic<int> g_size{0};
constexpr rlim_t kMaxSlots = 1 << 22;

Slot* slot_of(int fd) {
  if (fd < 0 || fd >= g_size.load(std::memory_order_acquire)) return nullptr;
  return g_slots.load(std::memory_order_relaxed) + fd;
}

template <class T>
T load(const T& field) {
  return std::atomic_ref<T>(const_cast<T&>(field)).load(std::memory_order_relaxed);
}
template <class T>
void store(T& field, T value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_relaxed);
}

ssize_t stamped_recv(int fd, void* buf, std::size_t len, int flags, Slot& slot) {
  iovec iov{buf, len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  StampControl control;
  control.attach(msg);
  const ssize_t n = direct_recvmsg(fd, msg, flags);
  if (n > 0 && load(slot.armed)) {
    if (const auto stamp = receive_stamp_ns(msg)) {
      store(slot.seen_ns, *stamp);
      store(slot.armed, 0);
    }
  }
  return n;
}

using RecvFunction = ssize_t (*)(int, void*, std::size_t, int);

// The recv() this one stands in front of: the C library's, or a sanitizer's, which must see
// every read for its model of what one thread hands another through a socket.
RecvFunction next_recv() {
  static const auto next = reinterpret_cast<RecvFunction>(dlsym(RTLD_NEXT, "recv"));
  return next;
}

}  // namespace

ReceiveStamps::ReceiveStamps() {
  static std::once_flag made;
  std::call_once(made, [] {
    // The hard limit: the process may raise its soft one after this.
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    const rlim_t size = std::min(files.rlim_max, kMaxSlots);
    g_slots.store(static_cast<Slot*>(std::calloc(size, sizeof(Slot))), std::memory_order_relaxed);
    g_size.store(static_cast<int>(size), std::memory_order_release);
  });
}

void ReceiveStamps::watch(int fd) {
  Slot* slot = slot_of(fd);
  if (!slot) return;
  enable_receive_stamps(fd);
  store(slot->seen_ns, std::int64_t{0});
  store(slot->armed, 1);
  store(slot->watched, 1);
}

std::int64_t ReceiveStamps::take(int fd) {
  Slot* slot = slot_of(fd);
  if (!slot) return 0;
  const std::int64_t seen = load(slot->seen_ns);
  store(slot->seen_ns, std::int64_t{0});
  return seen;
}

std::int64_t ReceiveStamps::pending_since(int fd) const {
  const Slot* slot = slot_of(fd);
  return slot ? load(slot->seen_ns) : 0;
}

void ReceiveStamps::answered(int fd) {
  Slot* slot = slot_of(fd);
  if (!slot) return;
  // Bytes read before the answer (a body, or a pipelined request already in libmicrohttpd's
  // buffer) are not the next request's: it is stamped at its first read after this.
  store(slot->seen_ns, std::int64_t{0});
  store(slot->armed, 1);
}

}  // namespace stampede

// The process's recv(): see receive_stamps.hpp. Named by its assembler name, so the C library's
// declaration of recv() in <sys/socket.h> (an inline wrapper under _FORTIFY_SOURCE) is not
// redefined.
extern "C" ssize_t stampede_recv(int fd, void* buf, std::size_t len, int flags) __asm__("recv");
extern "C" ssize_t stampede_recv(int fd, void* buf, std::size_t len, int flags) {
  using namespace stampede;
  Slot* slot = slot_of(fd);
  if (slot && load(slot->watched)) return stamped_recv(fd, buf, len, flags, *slot);
  if (const RecvFunction next = next_recv()) return next(fd, buf, len, flags);
  return recvfrom(fd, buf, len, flags, nullptr, nullptr);
}
