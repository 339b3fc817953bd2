#include "cli/provider_poller.hpp"

#include <chrono>

namespace stampede {

ProviderPoller::ProviderPoller(const ProviderAdmin& admin, std::int64_t period_ns)
    : admin_(admin), period_ns_(period_ns), thread_([this] { run(); }) {}

ProviderPoller::~ProviderPoller() {
  {
    const std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::optional<Parsed<ProviderStats>> ProviderPoller::latest() const {
  const std::lock_guard lock(mu_);
  return latest_;
}

void ProviderPoller::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    auto stats = admin_.stats();  // bounded by the admin client's own timeout
    lock.lock();
    latest_.emplace(std::move(stats));
    cv_.wait_for(lock, std::chrono::nanoseconds(period_ns_), [this] { return stopping_; });
  }
}

}  // namespace stampede
