#include "receive_stamp.hpp"

#include <cstring>

#include "scenario_clock.hpp"

namespace stampede {

void enable_receive_stamps(int fd) {
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

std::optional<std::int64_t> receive_stamp_ns(msghdr& msg) {
  std::optional<std::int64_t> stamp;
  for (cmsghdr* h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec ts{};
    std::memcpy(&ts, CMSG_DATA(h), sizeof ts);
    stamp = ScenarioClock::steady_at_unix(ts.tv_sec * 1'000'000'000LL + ts.tv_nsec);
  }
  return stamp;
}

}  // namespace stampede
