#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsed.hpp"
#include "scenario.hpp"

namespace stampede {

// Shard `index` of `count`: the clients whose global id is index mod count. Clients keep their
// global ids (and so their random streams), so the shards together are the one-process fleet.
struct Shard {
  std::int64_t index = 0;
  std::int64_t count = 1;

  bool sharded() const { return count > 1; }
  bool owns(std::int64_t client) const { return count == 1 || client % count == index; }
  // How many of the clients [0, below) it owns.
  std::int64_t clients_below(std::int64_t below) const {
    return below > index ? (below - index + count - 1) / count : 0;
  }
  // The global id of its k-th client.
  std::int64_t client(std::int64_t k) const { return index + k * count; }
};

// The items the shard's clients take: storm gives item k to client k mod clients; a queue is
// split into one queue per shard, item k in queue k mod count (see Workload), and the open
// model's arrivals alike, item k to shard k mod count, taken from its own clients' pool.
std::int64_t items_of(const FleetConfig& fleet, const Shard& shard);
// How many of its clients get a first item (and so ever open a connection).
std::int64_t first_senders_of(const FleetConfig& fleet, const Shard& shard);

// "I/N", 0 <= I < N.
Parsed<Shard> parse_shard(std::string_view text);
// --shard when given, else JOB_COMPLETION_INDEX with STAMPEDE_SHARDS (as a Kubernetes
// Indexed Job sets the index), else one shard. The values are passed in; null: unset.
Parsed<Shard> resolve_shard(const std::string& flag, const char* job_index, const char* shards);

// --start-at: epoch seconds ("1767225600", "1767225600.25") or RFC 3339
// ("2026-01-01T00:00:00Z", "2026-01-01T01:00:00.5+01:00"), as epoch nanoseconds.
Parsed<std::int64_t> parse_start_at(std::string_view text);

}  // namespace stampede
