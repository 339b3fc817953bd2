#include "live/http/connections.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "scenario_clock.hpp"

namespace stampede {
namespace {

constexpr std::size_t kConnectingAtOnce = 512;

class Closer {
 public:
  explicit Closer(std::vector<int>& fds) : fds_(fds) {}
  ~Closer() {
    if (!armed_) return;
    for (const int fd : fds_) {
      if (fd >= 0) close(fd);
    }
    fds_.clear();
  }
  void disarm() { armed_ = false; }

 private:
  std::vector<int>& fds_;
  bool armed_ = true;
};

// Ports run out before the range does when other sockets hold them: measured here, with
// another program's 50,000 loopback connections (from 127.0.0.2-4) on the machine, a fresh
// source address reached 7,768 connections to a port; an earlier run's TIME_WAIT holds
// ports too.
std::string ports_ran_out() {
  return std::string("connect: ") + std::strerror(EADDRNOTAVAIL) +
         ": no local port left to this source address (other sockets, or an earlier run's "
         "TIME_WAIT, hold them); a lower --connections-per-source spreads the fleet over more "
         "loopback addresses";
}

}  // namespace

Parsed<SocketAddress> numeric_address(const std::string& address, int port) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* info = nullptr;
  if (const int rc = getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &info);
      rc != 0 || !info) {
    return Parsed<SocketAddress>::fail("cannot use address " + address + ": " + gai_strerror(rc));
  }
  SocketAddress a;
  std::memcpy(&a.storage, info->ai_addr, info->ai_addrlen);
  a.length = info->ai_addrlen;
  a.family = info->ai_family;
  freeaddrinfo(info);
  return Parsed<SocketAddress>::ok(a);
}

std::optional<std::string> bind_source(int fd, std::optional<std::uint32_t> source) {
  if (!source || *source == 0) return std::nullopt;
  const int one = 1;
  setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl(*source);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) == 0) return std::nullopt;
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &local.sin_addr, text, sizeof text);
  return std::string("bind to source address ") + text + ": " + std::strerror(errno);
}

PortRange local_port_range() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  std::string text;
  std::getline(in, text);
  const auto range = parse_port_range(text);
  return range ? *range : PortRange{};
}

std::map<std::string, std::int64_t> count_source_addresses(const std::vector<int>& fds) {
  std::map<std::string, std::int64_t> counts;
  for (const int fd : fds) {
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (fd < 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) continue;
    char text[INET6_ADDRSTRLEN] = "?";
    const void* addr =
        local.ss_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    inet_ntop(local.ss_family, addr, text, sizeof text);
    ++counts[text];
  }
  return counts;
}

Parsed<std::vector<int>> open_connections(const std::string& address, int port, std::size_t count,
                                          std::int64_t timeout_ns,
                                          const std::vector<std::uint32_t>& sources) {
  using Result = Parsed<std::vector<int>>;
  const auto resolved = numeric_address(address, port);
  if (!resolved) return Result::fail(resolved.error());
  const sockaddr_storage& target = resolved->storage;
  const socklen_t target_len = resolved->length;
  const int family = resolved->family;

  std::vector<int> fds;
  fds.reserve(count);
  Closer closer(fds);
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return Result::fail(std::string("epoll_create1: ") + std::strerror(errno));
  const auto fail = [&](const std::string& why) {
    close(ep);
    return Result::fail("opened " + std::to_string(fds.size()) + " of " + std::to_string(count) +
                        " connections to " + address + ":" + std::to_string(port) + ", then " +
                        why);
  };
  const std::int64_t deadline = ScenarioClock::steady_after(timeout_ns);
  std::size_t connecting = 0;
  std::size_t started = 0;
  std::array<epoll_event, 256> events{};
  while (started < count || connecting > 0) {
    while (started < count && connecting < kConnectingAtOnce) {
      const int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) return fail(std::string("socket: ") + std::strerror(errno));
      fds.push_back(fd);
      const auto source = started < sources.size() ? sources[started] : 0u;
      ++started;
      if (auto e = bind_source(fd, source)) return fail(*e);
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      if (connect(fd, reinterpret_cast<const sockaddr*>(&target), target_len) == 0) {
        // libcurl 7.88 calls connect() on a socket handed to it even when told it is
        // connected (curl issue 10626); that succeeds only while the socket is still
        // "connecting". One connected at once is left for libcurl to open itself.
        close(fd);
        fds.back() = -1;
        continue;
      }
      if (errno == EADDRNOTAVAIL) return fail(ports_ran_out());
      if (errno != EINPROGRESS) return fail(std::string("connect: ") + std::strerror(errno));
      epoll_event ev{};
      ev.events = EPOLLOUT;
      ev.data.fd = fd;
      epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
      ++connecting;
    }
    if (connecting == 0) continue;
    const std::int64_t left_ms = (deadline - ScenarioClock::steady_ns()) / 1'000'000;
    if (left_ms <= 0) return fail("timed out");
    const int n =
        epoll_wait(ep, events.data(), static_cast<int>(events.size()), static_cast<int>(left_ms));
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      int error = 0;
      socklen_t len = sizeof error;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
      if (error != 0) return fail(std::string("connect: ") + std::strerror(error));
      epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
      --connecting;
    }
  }
  close(ep);
  closer.disarm();
  return Result::ok(std::move(fds));
}

}  // namespace stampede
