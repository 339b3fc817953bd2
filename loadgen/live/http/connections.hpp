#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parsed.hpp"
#include "policy/source_addresses.hpp"

namespace stampede {

// A numeric address and port, ready for connect().
struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = 0;
};

Parsed<SocketAddress> numeric_address(const std::string& address, int port);

// Opens `count` TCP connections to a numeric address before t=0, as a running fleet holds
// its connections already: the first wave then measures the clients, not a thousand
// handshakes. An entry may be -1: that client's HTTP client opens its own. Connects a
// bounded number at a time so the target's listen backlog is not
// flooded. The error names how many connected and why the next one did not.
// sources: empty, or connection k's source address (IPv4, host order; 0: the kernel's choice).
Parsed<std::vector<int>> open_connections(const std::string& address, int port, std::size_t count,
                                          std::int64_t timeout_ns,
                                          const std::vector<std::uint32_t>& sources = {});

// Binds fd to source (IPv4, host order) before its connect, leaving the port to the connect
// (IP_BIND_ADDRESS_NO_PORT), which picks one free for that destination: a bind that chose the
// port itself would take it from every destination. nullopt: nothing to bind; the error.
std::optional<std::string> bind_source(int fd, std::optional<std::uint32_t> source);

// The kernel's local port range (/proc/sys/net/ipv4/ip_local_port_range), or Linux's default
// when it cannot be read.
PortRange local_port_range();

// How many of these connections go from each local address, as the kernel says
// (getsockname): what the results show of a spread fleet.
std::map<std::string, std::int64_t> count_source_addresses(const std::vector<int>& fds);

}  // namespace stampede
