#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"

namespace stampede {

// HOST:PORT as --listen and --admin-listen take it; an IPv6 host in brackets ([::1]:8080).
// Port 0 asks the kernel for a free one.
struct ListenAddress {
  std::string host;
  int port = 0;

  // http://HOST:PORT, with brackets around an IPv6 host.
  std::string url(int bound_port) const;
  // Every address the host resolves to is a loopback one (127.0.0.0/8, ::1).
  bool is_loopback() const;
};

Parsed<ListenAddress> parse_listen_address(std::string_view text);

// A bound, listening, non-blocking TCP socket, or the reason there is none.
struct ListenSocket {
  int fd = -1;
  int port = 0;
};
Parsed<ListenSocket> open_listen_socket(const ListenAddress& address, int backlog,
                                        bool reuse_port = false);
// count sockets on one port (SO_REUSEPORT), for as many processes: the kernel spreads the
// connections among them. Port 0: the first one's.
Parsed<std::vector<ListenSocket>> open_listen_sockets(ListenAddress address, int backlog,
                                                      std::size_t count);

}  // namespace stampede
