#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <ctime>
#include <optional>

namespace stampede {

// The kernel's receive stamp (SO_TIMESTAMPNS): when the bytes a recvmsg() returns reached
// the socket, not when a loop shared with thousands of other connections got to them. loadgen's
// transports stamp an answer's arrival at the client with it, fakeprovider a request's arrival.

// Asks the kernel to stamp what arrives on fd.
void enable_receive_stamps(int fd);

// Room in a recvmsg()'s control data for the stamp.
struct StampControl {
  alignas(cmsghdr) char bytes[CMSG_SPACE(sizeof(timespec))];
  void attach(msghdr& msg) {
    msg.msg_control = bytes;
    msg.msg_controllen = sizeof bytes;
  }
};

// The stamp a recvmsg() with StampControl attached brought, as a steady time
// (ScenarioClock); none if it brought none.
std::optional<std::int64_t> receive_stamp_ns(msghdr& msg);

}  // namespace stampede
