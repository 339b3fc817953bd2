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

// A tenth of the range is left for the connections that come and go beside the fleet's
// (reconnects whose old port still waits in TIME_WAIT, the admin API's, other programs').
std::int64_t default_connections_per_source(const PortRange& range);

struct SourcePlan {
  std::uint32_t first = 0;      // IPv4, host order: the first source address; 0 when unspread
  std::int64_t per_source = 0;  // connections each address takes, in client order
  std::int64_t count = 1;       // addresses used
  Shard group;                  // whose clients share the addresses (ranked within it)
  bool spread() const { return count > 1; }
};

// How the connections of one group of clients (one command's, however many processes run it)
// to target_address spread over source addresses when more than per_source of them would go
// to it: from 127.0.0.1 up, per_source each. Spreading needs an IPv4 loopback target (another
// machine's address is reached only from this machine's own addresses); the error says so and
// what to do. connections: how many of the group's clients ever connect.
Parsed<SourcePlan> plan_sources(std::int64_t connections, std::int64_t per_source,
                                const std::string& target_address, const Shard& group,
                                const PortRange& range);

// The source address client (a global id, one of plan.group's) binds to, host order; nullopt
// when the plan does not spread (the kernel chooses, as always).
std::optional<std::uint32_t> source_of(const SourcePlan& plan, std::int64_t client);

// "127.0.0.2".
std::string ipv4_text(std::uint32_t address);

}  // namespace stampede
