#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "parsed.hpp"

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
Parsed<std::vector<int>> open_connections(const std::string& address, int port, std::size_t count,
                                          std::int64_t timeout_ns);

}  // namespace stampede
