#include "processes/remote_admitter.hpp"

#include <signal.h>
#include <unistd.h>

#include <iostream>

#include "processes/frame_channel.hpp"

namespace stampede {

class RemoteAdmitter::Line : public AdmissionLine {
 public:
  Line(RemoteAdmitter& owner, int fd) : owner_(owner), fd_(fd) {}
  int fd() const override { return fd_; }
  // A failed write is an owner gone: its end of the socket is closed, so fd() reads as
  // readable, and answer() finds out.
  void ask(std::span<const ProviderArrival> arrivals) override {
    write_frame(fd_, owner_.question(arrivals));
  }
  std::vector<Admission> answer(std::size_t asked) override { return owner_.answer_on(fd_, asked); }

 private:
  RemoteAdmitter& owner_;
  const int fd_;
};

RemoteAdmitter::RemoteAdmitter(int channel_fd, std::span<const int> line_fds,
                               std::size_t thread_offset, const ProviderConfig& config,
                               const SendRules& rules, double time_scale)
    : fd_(channel_fd),
      thread_offset_(thread_offset),
      config_(config),
      rules_(rules),
      clock_(time_scale) {
  for (const int fd : line_fds) lines_.push_back(std::make_unique<Line>(*this, fd));
}

RemoteAdmitter::~RemoteAdmitter() = default;

Admission RemoteAdmitter::admit(const ProviderArrival& arrival) {
  return admit_all({&arrival, 1}).front();
}

std::vector<Admission> RemoteAdmitter::admit_all(std::span<const ProviderArrival> arrivals) {
  const std::lock_guard lock(mu_);
  if (!gone_.load() && write_frame(fd_, question(arrivals))) return answer_on(fd_, arrivals.size());
  return answer_on(-1, arrivals.size());
}

AdmissionLine* RemoteAdmitter::line(std::size_t loop) {
  return loop < lines_.size() ? lines_[loop].get() : nullptr;
}

std::string RemoteAdmitter::question(std::span<const ProviderArrival> arrivals) const {
  std::vector<ProviderArrival> numbered(arrivals.begin(), arrivals.end());
  for (ProviderArrival& a : numbered) a.thread += thread_offset_;
  return arrivals_frame(numbered);
}

std::vector<Admission> RemoteAdmitter::answer_on(int fd, std::size_t asked) {
  if (fd >= 0 && !gone_.load()) {
    const auto answer = read_frame(fd);
    if (answer && answer->kind == FrameKind::kAdmitted) {
      auto admitted = read_admissions(answer->payload);
      if (admitted && admitted->size() == asked) return std::move(*admitted);
    }
  }
  owner_gone();
  Decision dropped;
  dropped.reset_connection = true;
  return std::vector<Admission>(asked, Admission{0, dropped, std::nullopt, {}});
}

void RemoteAdmitter::note_upstream(const AdmissionTicket& ticket, int upstream) {
  const std::lock_guard lock(mu_);
  if (!gone_.load() && !write_frame(fd_, note_frame({ticket, upstream}))) owner_gone();
}

std::int64_t RemoteAdmitter::draw_hop_ns() {
  const std::lock_guard lock(mu_);
  if (!gone_.load() && write_frame(fd_, hop_frame())) {
    const auto answer = read_frame(fd_);
    if (answer && answer->kind == FrameKind::kHopDrawn) {
      if (const auto hop = read_hop_drawn(answer->payload)) return *hop;
    }
  }
  owner_gone();
  return 0;
}

void RemoteAdmitter::owner_gone() {
  if (gone_.exchange(true)) return;
  std::cerr << "fakeprovider: worker " << getpid()
            << ": the process that decides is gone; stopping\n";
  kill(getpid(), SIGTERM);
}

}  // namespace stampede
