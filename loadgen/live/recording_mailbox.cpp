#include "live/recording_mailbox.hpp"

#include <chrono>

namespace stampede {

std::uint64_t RecordingMailbox::ask() {
  return asked_.fetch_add(1, std::memory_order_acq_rel) + 1;
}

void RecordingMailbox::serve(const Recording& recording, bool final) {
  const std::uint64_t ticket = asked_.load(std::memory_order_acquire);
  {
    const std::lock_guard lock(mu_);
    copy_ = recording;
    copy_ticket_ = ticket;
    final_ = final_ || final;
  }
  served_ = ticket;
  cv_.notify_all();
}

std::optional<Recording> RecordingMailbox::take(std::uint64_t ticket, std::int64_t wait_ns) {
  std::unique_lock lock(mu_);
  const bool ready = cv_.wait_for(lock, std::chrono::nanoseconds(wait_ns),
                                  [&] { return final_ || copy_ticket_ >= ticket; });
  if (!ready) return std::nullopt;
  return copy_;
}

}  // namespace stampede
