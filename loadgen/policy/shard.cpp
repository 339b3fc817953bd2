#include "policy/shard.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "duration.hpp"
#include "policy/time_text.hpp"
#include "results.hpp"

namespace stampede {
namespace {

Parsed<std::int64_t> whole_number(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return Parsed<std::int64_t>::fail("'" + std::string(text) + "' is not a whole number");
  return Parsed<std::int64_t>::ok(v);
}

}  // namespace

std::int64_t items_of(const FleetConfig& fleet, const Shard& shard) {
  const std::int64_t total = fleet.item_count();
  if (!shard.sharded()) return total;
  // A queue and the open model's arrivals are split alike: item k to shard k mod count.
  if (fleet.workload != WorkloadKind::kStorm) return shard.clients_below(total);
  // Client c takes items c, c + clients, ... below the total.
  std::int64_t items = 0;
  const std::int64_t senders = std::min(fleet.clients, total);
  for (std::int64_t c = shard.index; c < senders; c += shard.count)
    items += (total - c + fleet.clients - 1) / fleet.clients;
  return items;
}

std::int64_t first_senders_of(const FleetConfig& fleet, const Shard& shard) {
  const std::int64_t clients = shard.clients_below(fleet.clients);
  if (fleet.workload == WorkloadKind::kQueue) return std::min(clients, items_of(fleet, shard));
  // The open model's arrivals may find any of them free.
  if (fleet.open_model()) return clients;
  return shard.clients_below(std::min(fleet.clients, fleet.item_count()));
}

Parsed<Shard> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto bad = [&](const std::string& why) {
    return Parsed<Shard>::fail("'" + std::string(text) + "' " + why +
                               "; give I/N with 0 <= I < N, e.g. 0/4");
  };
  if (slash == std::string_view::npos) return bad("is not I/N");
  const auto index = whole_number(text.substr(0, slash));
  const auto count = whole_number(text.substr(slash + 1));
  if (!index || !count) return bad("is not I/N");
  if (*count < 1) return bad("has no shards");
  if (*count > kMaxShards) return bad("has more than " + std::to_string(kMaxShards) + " shards");
  if (*index < 0 || *index >= *count) return bad("has an index outside 0..N-1");
  return Parsed<Shard>::ok(Shard{*index, *count});
}

Parsed<Shard> resolve_shard(const std::string& flag, const char* job_index, const char* shards) {
  if (!flag.empty()) {
    auto s = parse_shard(flag);
    if (!s) return Parsed<Shard>::fail("--shard: " + s.error());
    return s;
  }
  const bool has_index = job_index && *job_index;
  const bool has_count = shards && *shards;
  if (!has_index && !has_count) return Parsed<Shard>::ok(Shard{});
  if (!has_count)
    return Parsed<Shard>::fail(
        "JOB_COMPLETION_INDEX is set but STAMPEDE_SHARDS is not: set it to the Job's completions, "
        "or give --shard I/N");
  if (!has_index)
    return Parsed<Shard>::fail(
        "STAMPEDE_SHARDS is set but JOB_COMPLETION_INDEX is not: run as an Indexed Job, or give "
        "--shard I/N");
  auto s = parse_shard(std::string(job_index) + "/" + shards);
  if (!s) return Parsed<Shard>::fail("JOB_COMPLETION_INDEX/STAMPEDE_SHARDS: " + s.error());
  return s;
}

Parsed<std::int64_t> parse_start_at(std::string_view text) {
  auto ns = rfc3339_ns(text);
  if (!ns) ns = decimal_seconds_ns(text);
  if (!ns || *ns < kNsPerSec)
    return Parsed<std::int64_t>::fail("'" + std::string(text) +
                                      "' is neither epoch seconds (e.g. 1767225600.5) nor an "
                                      "RFC 3339 time (e.g. 2026-01-01T00:00:00Z)");
  return Parsed<std::int64_t>::ok(*ns);
}

}  // namespace stampede
