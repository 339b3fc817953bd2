#pragma once

#include <mutex>

#include "server/admitter.hpp"

namespace stampede {

// A data-plane worker's provider (fakeprovider --processes): every decision is the owning
// process's, asked over the worker's channel, one call at a time. The worker's loops are
// numbered after the other workers' (thread_offset), so each keeps its own recorder there.
// When the owner is gone the worker is stopping: what it still asks is answered by dropping
// the connection, as a provider that went away would, and the worker is sent SIGTERM.
class RemoteAdmitter : public Admitter {
 public:
  RemoteAdmitter(int channel_fd, std::size_t thread_offset, const ProviderConfig& config,
                 const SendRules& rules, double time_scale);

  const ProviderConfig& config() const override { return config_; }
  const SendRules& send_rules() const override { return rules_; }
  const ScenarioClock& clock() const override { return clock_; }
  Admission admit(const ProviderArrival& arrival) override;
  std::vector<Admission> admit_all(std::span<const ProviderArrival> arrivals) override;
  bool batches() const override { return true; }
  void note_upstream(const AdmissionTicket& ticket, int upstream) override;
  std::int64_t draw_hop_ns() override;

 private:
  void owner_gone();  // under mu_

  const int fd_;
  const std::size_t thread_offset_;
  const ProviderConfig config_;
  const SendRules rules_;
  const ScenarioClock clock_;
  std::mutex mu_;  // one question on the channel at a time
  bool gone_ = false;
};

}  // namespace stampede
