#include "listen_address.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

namespace stampede {
namespace {

using AddrInfoPtr = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

Parsed<AddrInfoPtr> resolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) {
    return Parsed<AddrInfoPtr>::fail("cannot resolve '" + host + "': " + gai_strerror(rc));
  }
  return Parsed<AddrInfoPtr>::ok(AddrInfoPtr(res, &freeaddrinfo));
}

bool is_loopback_sockaddr(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) return in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

}  // namespace

std::string ListenAddress::url(int bound_port) const {
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(bound_port);
}

bool ListenAddress::is_loopback() const {
  const auto res = resolve(host, port);
  if (!res) return false;
  for (const addrinfo* ai = res->get(); ai; ai = ai->ai_next) {
    if (!is_loopback_sockaddr(ai->ai_addr)) return false;
  }
  return true;
}

Parsed<ListenAddress> parse_listen_address(std::string_view text) {
  const std::string t(text);
  const auto bad = [&](const std::string& why) {
    return Parsed<ListenAddress>::fail("'" + t + "' is not a listen address (" + why +
                                       "); expected HOST:PORT, e.g. 127.0.0.1:8080, [::1]:0");
  };
  const auto colon = t.rfind(':');
  if (colon == std::string::npos) return bad("no ':PORT'");
  std::string host = t.substr(0, colon);
  const std::string port_text = t.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return bad("an IPv6 host goes in brackets");
  }
  if (host.empty()) return bad("no host");
  int port = -1;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port < 0 || port > 65535) {
    return bad("the port must be 0-65535");
  }
  return Parsed<ListenAddress>::ok({host, port});
}

Parsed<ListenSocket> open_listen_socket(const ListenAddress& address, int backlog,
                                        bool reuse_port) {
  const auto res = resolve(address.host, address.port);
  if (!res) return Parsed<ListenSocket>::fail(res.error());
  std::string error = "no address to bind";
  for (const addrinfo* ai = res->get(); ai; ai = ai->ai_next) {
    const int fd =
        socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, backlog) != 0) {
      error = std::strerror(errno);
      close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    const int port =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                          : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
    return Parsed<ListenSocket>::ok({fd, port});
  }
  return Parsed<ListenSocket>::fail("cannot listen on " + address.host + ":" +
                                    std::to_string(address.port) + ": " + error);
}

Parsed<std::vector<ListenSocket>> open_listen_sockets(ListenAddress address, int backlog,
                                                      std::size_t count) {
  std::vector<ListenSocket> sockets;
  for (std::size_t i = 0; i < count; ++i) {
    auto sock = open_listen_socket(address, backlog, /*reuse_port=*/true);
    if (!sock) {
      for (const ListenSocket& s : sockets) close(s.fd);
      return Parsed<std::vector<ListenSocket>>::fail(sock.error());
    }
    address.port = sock->port;
    sockets.push_back(*sock);
  }
  return Parsed<std::vector<ListenSocket>>::ok(std::move(sockets));
}

}  // namespace stampede
