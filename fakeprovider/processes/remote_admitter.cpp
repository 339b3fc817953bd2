#include "processes/remote_admitter.hpp"

#include <signal.h>
#include <unistd.h>

#include <iostream>

#include "processes/frame_channel.hpp"

namespace stampede {

RemoteAdmitter::RemoteAdmitter(int channel_fd, std::size_t thread_offset,
                               const ProviderConfig& config, const SendRules& rules,
                               double time_scale)
    : fd_(channel_fd),
      thread_offset_(thread_offset),
      config_(config),
      rules_(rules),
      clock_(time_scale) {}

Admission RemoteAdmitter::admit(const ProviderArrival& arrival) {
  return admit_all({&arrival, 1}).front();
}

std::vector<Admission> RemoteAdmitter::admit_all(std::span<const ProviderArrival> arrivals) {
  std::vector<ProviderArrival> numbered(arrivals.begin(), arrivals.end());
  for (ProviderArrival& a : numbered) a.thread += thread_offset_;
  const std::lock_guard lock(mu_);
  if (!gone_ && write_frame(fd_, arrivals_frame(numbered))) {
    const auto answer = read_frame(fd_);
    if (answer && answer->kind == FrameKind::kAdmitted) {
      auto admitted = read_admissions(answer->payload);
      if (admitted && admitted->size() == arrivals.size()) return std::move(*admitted);
    }
  }
  owner_gone();
  Decision dropped;
  dropped.reset_connection = true;
  return std::vector<Admission>(arrivals.size(), Admission{0, dropped, std::nullopt, {}});
}

void RemoteAdmitter::note_upstream(const AdmissionTicket& ticket, int upstream) {
  const std::lock_guard lock(mu_);
  if (!gone_ && !write_frame(fd_, note_frame({ticket, upstream}))) owner_gone();
}

std::int64_t RemoteAdmitter::draw_hop_ns() {
  const std::lock_guard lock(mu_);
  if (!gone_ && write_frame(fd_, hop_frame())) {
    const auto answer = read_frame(fd_);
    if (answer && answer->kind == FrameKind::kHopDrawn) {
      if (const auto hop = read_hop_drawn(answer->payload)) return *hop;
    }
  }
  owner_gone();
  return 0;
}

void RemoteAdmitter::owner_gone() {
  if (gone_) return;
  gone_ = true;
  std::cerr << "fakeprovider: worker " << getpid()
            << ": the process that decides is gone; stopping\n";
  kill(getpid(), SIGTERM);
}

}  // namespace stampede
