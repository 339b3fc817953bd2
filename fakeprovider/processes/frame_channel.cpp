#include "processes/frame_channel.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace stampede {
namespace {

bool read_exactly(int fd, char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool write_frame(int fd, std::string_view frame) {
  while (!frame.empty()) {
    // MSG_NOSIGNAL: a worker whose owner died learns it here, not from SIGPIPE.
    const ssize_t n = send(fd, frame.data(), frame.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    frame.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<Frame> read_frame(int fd) {
  char header[kFrameHeaderBytes];
  if (!read_exactly(fd, header, sizeof header)) return std::nullopt;
  const auto head = read_frame_header({header, sizeof header});
  if (!head) return std::nullopt;
  Frame frame{head->kind, std::string(head->payload_bytes, '\0')};
  if (!read_exactly(fd, frame.payload.data(), frame.payload.size())) return std::nullopt;
  return frame;
}

}  // namespace stampede
