#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "processes/admission_codec.hpp"

namespace stampede {

// Whole frames over a blocking stream socket: the owner and a worker ask and answer in turn,
// so each end reads only what the other is writing now.
struct Frame {
  FrameKind kind;
  std::string payload;
};

// False when the peer is gone.
bool write_frame(int fd, std::string_view frame);
// None at the peer's end, on an error, or for a header no frame has.
std::optional<Frame> read_frame(int fd);

}  // namespace stampede
