#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsed.hpp"
#include "policy/shard.hpp"

namespace stampede {

// Which source address each client connects from. The kernel gives one source address about
// as many connections to one destination address:port as its local port range has ports
// (/proc/sys/net/ipv4/ip_local_port_range: 32768-60999 is 28,232); a fleet beyond that binds
// its clients to further loopback addresses, 127.0.0.2, 127.0.0.3, ... (every 127.x address
// is local). Pure: the drivers read the range and bind the sockets.

struct PortRange {
  std::int64_t low = 32768;
  std::int64_t high = 60999;
  std::int64_t size() const { return high - low + 1; }
};

// The file's "LOW\tHIGH\n".
Parsed<PortRange> parse_port_range(std::string_view text);

// How many connections one source address takes to one destination. Linux's connect() looks
// for a free port among the range's ports of one parity first (bind() to port 0 takes the
// other's first) and walks all of them before it tries the other half: past half the range,
// every connect walks that half again. Measured here (32768-60999, one loadgen process): 14,000
// connections from one address took 0.25 s of system time, 15,000 took 1.4 s and 16,000 2.6 s.
// A spread fleet takes half the range from each address; a target it cannot spread over may
// have the whole range, as slow as that is. A tenth of either is left for the connections that
// come and go beside the fleet's (reconnects whose old port still waits in TIME_WAIT, the admin
// API's, other programs').
struct SourceShare {
  std::int64_t spread_past = 0;  // an IPv4 loopback target: more from one address spread
  std::int64_t at_most = 0;      // another target: the most that one address may carry
};

// chosen: --connections-per-source, both figures; 0 for the defaults from the range.
SourceShare source_share(const PortRange& range, std::int64_t chosen);

struct SourcePlan {
  std::uint32_t first = 0;      // IPv4, host order: the first source address; 0 when unspread
  std::int64_t per_source = 0;  // connections each address takes, in client order
  std::int64_t count = 1;       // addresses used
  Shard group;                  // whose clients share the addresses (ranked within it)
  bool spread() const { return count > 1; }
};

// How the connections of one group of clients (one command's, however many processes run it)
// to target_address spread over source addresses when more than share.spread_past of them
// would go to it: from 127.0.0.1 up, that many each. Spreading needs an IPv4 loopback target
// (another machine's address is reached only from this machine's own addresses): for another,
// more than share.at_most is an error that says so and what to do. connections: how many of
// the group's clients ever connect.
Parsed<SourcePlan> plan_sources(std::int64_t connections, const SourceShare& share,
                                const std::string& target_address, const Shard& group,
                                const PortRange& range);

// The source address client (a global id, one of plan.group's) binds to, host order; nullopt
// when the plan does not spread (the kernel chooses, as always).
std::optional<std::uint32_t> source_of(const SourcePlan& plan, std::int64_t client);

// "127.0.0.2".
std::string ipv4_text(std::uint32_t address);

}  // namespace stampede
