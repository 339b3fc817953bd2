#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "policy/retry_policy.hpp"
#include "rng.hpp"
#include "scenario.hpp"
#include "sim/huge_page_allocator.hpp"

namespace stampede {

// Per-client arrays, read at random.
template <class T>
using ClientArray = std::vector<T, HugePageAllocator<T>>;

// A simulated fleet's clients, each on its own seeded stream, and their guards: one set per
// client when the fleet has any, else one shared (stateless) set, so a guardless fleet pays
// for no per-client copy.
template <class Client>
class SimFleet {
 public:
  explicit SimFleet(const FleetConfig& fleet)
      : shared_guards_(RetryPolicy::make_guards(fleet)), per_client_guards_(shared_guards_.any()) {
    const auto n = static_cast<std::size_t>(fleet.clients);
    clients_.reserve(n);
    for (std::size_t c = 0; c < n; ++c) clients_.emplace_back(make_stream(fleet.seed, c));
    if (per_client_guards_) guards_.assign(n, shared_guards_);
  }

  Client& operator[](std::uint32_t c) { return clients_[c]; }
  const Client& operator[](std::uint32_t c) const { return clients_[c]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(clients_.size()); }

  ClientGuards& guards(std::uint32_t c) { return per_client_guards_ ? guards_[c] : shared_guards_; }

 private:
  ClientGuards shared_guards_;
  bool per_client_guards_;
  ClientArray<ClientGuards> guards_;
  ClientArray<Client> clients_;
};

}  // namespace stampede
