#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "server/admitter.hpp"

namespace stampede {

// A data-plane worker's provider (fakeprovider --processes): every decision is the owning
// process's. Each loop asks on a line of its own (AdmissionLine, one question in flight); what
// is asked with a wait (a hop's draw, a note of the upstream's answer, a held request's
// decision on the timer's thread) goes over the worker's channel, one call at a time. The
// worker's loops are numbered after the other workers' (thread_offset), so each keeps its own
// recorder there. When the owner is gone the worker is stopping: what it still asks is
// answered by dropping the connection, as a provider that went away would, and the worker is
// sent SIGTERM.
class RemoteAdmitter : public Admitter {
 public:
  // line_fds: one per loop, in the loops' order.
  RemoteAdmitter(int channel_fd, std::span<const int> line_fds, std::size_t thread_offset,
                 const ProviderConfig& config, const SendRules& rules, double time_scale);
  ~RemoteAdmitter() override;

  const ProviderConfig& config() const override { return config_; }
  const SendRules& send_rules() const override { return rules_; }
  const ScenarioClock& clock() const override { return clock_; }
  Admission admit(const ProviderArrival& arrival) override;
  std::vector<Admission> admit_all(std::span<const ProviderArrival> arrivals) override;
  AdmissionLine* line(std::size_t loop) override;
  void note_upstream(const AdmissionTicket& ticket, int upstream) override;
  std::int64_t draw_hop_ns() override;

 private:
  class Line;
  // The arrivals' frame, their loops numbered among every worker's.
  std::string question(std::span<const ProviderArrival> arrivals) const;
  // The answer read from fd to a question of asked arrivals, or their connections dropped.
  std::vector<Admission> answer_on(int fd, std::size_t asked);
  void owner_gone();

  const int fd_;
  const std::size_t thread_offset_;
  const ProviderConfig config_;
  const SendRules rules_;
  const ScenarioClock clock_;
  std::vector<std::unique_ptr<Line>> lines_;
  std::mutex mu_;  // one question on the channel at a time
  std::atomic<bool> gone_{false};
};

}  // namespace stampede
