#include "processes/decision_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "processes/frame_channel.hpp"

namespace stampede {

DecisionServer::DecisionServer(Admitter& provider, std::vector<int> channel_fds)
    : provider_(provider),
      fds_(std::move(channel_fds)),
      stop_fd_(eventfd(0, EFD_CLOEXEC)),
      thread_([this] { run(); }) {}

DecisionServer::~DecisionServer() {
  eventfd_write(stop_fd_, 1);
  join();
  close(stop_fd_);
}

void DecisionServer::join() {
  if (thread_.joinable()) thread_.join();
}

void DecisionServer::run() {
  std::vector<pollfd> polled;
  while (!fds_.empty()) {
    polled.assign(1, {stop_fd_, POLLIN, 0});
    for (const int fd : fds_) polled.push_back({fd, POLLIN, 0});
    if (poll(polled.data(), polled.size(), -1) < 0) continue;  // EINTR
    if (polled[0].revents) break;
    for (std::size_t i = 1; i < polled.size(); ++i) {
      if (polled[i].revents == 0 || answer(polled[i].fd)) continue;
      close(polled[i].fd);
      std::erase(fds_, polled[i].fd);
    }
  }
  for (const int fd : fds_) close(fd);
  fds_.clear();
}

bool DecisionServer::answer(int fd) {
  const auto frame = read_frame(fd);
  if (!frame) return false;  // the worker has exited
  switch (frame->kind) {
    case FrameKind::kAdmit: {
      const auto arrivals = read_arrivals(frame->payload);
      if (!arrivals) break;
      return write_frame(fd, admissions_frame(provider_.admit_all(*arrivals)));
    }
    case FrameKind::kNote: {
      const auto note = read_note(frame->payload);
      if (!note) break;
      provider_.note_upstream(note->ticket, note->upstream);
      return true;
    }
    case FrameKind::kHop:
      return write_frame(fd, hop_drawn_frame(provider_.draw_hop_ns()));
    default:
      break;
  }
  std::cerr << "fakeprovider: a worker sent a frame that is not a question; its channel is "
               "closed\n";
  return false;
}

}  // namespace stampede
