#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include "live/provider_admin.hpp"
#include "parsed.hpp"

namespace stampede {

// loadgen run --dashboard with --provider-admin: the provider's GET /admin/stats read once a
// period on a thread of its own, so that the run's own loop never waits on the provider's
// admin port (a slow or gone provider shows on the page as an error, not as a stalled run).
class ProviderPoller {
 public:
  ProviderPoller(const ProviderAdmin& admin, std::int64_t period_ns);
  ~ProviderPoller();
  ProviderPoller(const ProviderPoller&) = delete;
  ProviderPoller& operator=(const ProviderPoller&) = delete;

  // The last reading: the stats, or why they could not be read; none before the first.
  std::optional<Parsed<ProviderStats>> latest() const;

 private:
  void run();

  const ProviderAdmin& admin_;
  std::int64_t period_ns_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Parsed<ProviderStats>> latest_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace stampede
