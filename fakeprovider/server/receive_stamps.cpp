#include "server/receive_stamps.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "direct_socket_calls.hpp"
#include "receive_stamp.hpp"

namespace stampede {

// A descriptor's stamp: that of the first read since its last answer, kept until taken.
struct ReceiveStamps::Slot {
  std::int64_t seen_ns = 0;
  std::int32_t armed = 0;  // the next stamped read is a new request's first
};

namespace {

constexpr rlim_t kMaxSlots = 1 << 22;

// Written by the accepting thread, read by the loop's: a connection's slot is handed between
// them with the descriptor, each field on its own.
template <class T>
T load(const T& field) {
  return std::atomic_ref<T>(const_cast<T&>(field)).load(std::memory_order_relaxed);
}
template <class T>
void store(T& field, T value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_relaxed);
}

}  // namespace

ReceiveStamps::ReceiveStamps() {
  // The hard limit, since the process may raise its soft one after this. Allocated zeroed and
  // never touched until used, so the slots cost only the pages of the descriptors in use.
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  const rlim_t size = std::min(files.rlim_max, kMaxSlots);
  slots_ = static_cast<Slot*>(std::calloc(size, sizeof(Slot)));
  size_ = slots_ ? static_cast<int>(size) : 0;
}

ReceiveStamps::~ReceiveStamps() {
  std::free(slots_);
}

ReceiveStamps::Slot* ReceiveStamps::slot_of(int fd) const {
  return fd >= 0 && fd < size_ ? slots_ + fd : nullptr;
}

void ReceiveStamps::watch(int fd) {
  Slot* slot = slot_of(fd);
  if (!slot) return;
  enable_receive_stamps(fd);
  store(slot->seen_ns, std::int64_t{0});
  store(slot->armed, 1);
}

ssize_t ReceiveStamps::receive(int fd, void* buf, std::size_t len) {
  iovec iov{buf, len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  StampControl control;
  control.attach(msg);
  const ssize_t n = direct_recvmsg(fd, msg, 0);
  Slot* slot = slot_of(fd);
  if (n > 0 && slot && load(slot->armed)) {
    if (const auto stamp = receive_stamp_ns(msg)) {
      store(slot->seen_ns, *stamp);
      store(slot->armed, 0);
    }
  }
  return n;
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
  // Bytes read before the answer (a body, or a pipelined request already in the connection's
  // buffer) are not the next request's: it is stamped at its first read after this.
  store(slot->seen_ns, std::int64_t{0});
  store(slot->armed, 1);
}

}  // namespace stampede
