// Burst fidelity client for bench/provider/run.sh: opens N keep-alive connections, warms each
// with one request, then writes one request on every connection as fast as one thread can,
// stamping each send with CLOCK_MONOTONIC (the provider's steady_clock). It prints the offset
// between its clock and the provider's scenario clock, taken from GET /admin/stats, and one
// "client_id,before_send_ns,after_send_ns" line per burst request, for stamp_error.py to join
// with the arrival log.
//
//   burst_client DATA_PORT ADMIN_PORT N > sends.csv
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace {

std::int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("connect");
    std::exit(1);
  }
  return fd;
}

void send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const auto n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      std::perror("send");
      std::exit(1);
    }
    sent += static_cast<std::size_t>(n);
  }
}

// Reads one response (headers and Content-Length body) from a blocking socket.
std::string read_response(int fd) {
  std::string buf;
  char chunk[4096];
  while (true) {
    const auto end = buf.find("\r\n\r\n");
    if (end != std::string::npos) {
      const auto cl = buf.find("Content-Length: ");
      const std::size_t length = cl == std::string::npos ? 0 : std::stoul(buf.substr(cl + 16));
      if (buf.size() >= end + 4 + length) return buf;
    }
    const auto n = recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) {
      std::perror("recv");
      std::exit(1);
    }
    buf.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string request(const std::string& client_id) {
  return "GET /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client-Id: " + client_id + "\r\n\r\n";
}

// Reads one response from each connection, in whatever order they come.
void await_responses(const std::vector<int>& fds, const char* phase) {
  const int ep = epoll_create1(0);
  for (std::size_t i = 0; i < fds.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
  }
  std::size_t left = fds.size();
  std::vector<epoll_event> events(1024);
  while (left > 0) {
    const int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 30'000);
    if (n <= 0) {
      std::fprintf(stderr, "burst_client: %zu of %zu responses missing after 30 s (%s)\n", left,
                   fds.size(), phase);
      std::exit(1);
    }
    for (int k = 0; k < n; ++k) {
      const int fd = fds[events[k].data.u64];
      read_response(fd);
      epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
      --left;
    }
  }
  close(ep);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: burst_client DATA_PORT ADMIN_PORT N\n");
    return 2;
  }
  const int data_port = std::atoi(argv[1]);
  const int admin_port = std::atoi(argv[2]);
  const int n = std::atoi(argv[3]);

  std::vector<int> fds;
  for (int i = 0; i < n; ++i) fds.push_back(connect_to(data_port));
  for (int i = 0; i < n; ++i) send_all(fds[i], request("warm" + std::to_string(i)));
  await_responses(fds, "warm-up");

  // The provider's scenario clock against ours (time scale 1): the midpoint of a
  // GET /admin/stats, from the quickest of several, as NTP does.
  std::int64_t offset_ns = 0;
  std::int64_t best_rtt_ns = INT64_MAX;
  for (int i = 0; i < 20; ++i) {
    const int admin = connect_to(admin_port);
    const std::int64_t before = mono_ns();
    send_all(admin, "GET /admin/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const std::string stats = read_response(admin);
    const std::int64_t after = mono_ns();
    close(admin);
    const auto at = stats.find("\"clock_ns\":");
    if (at == std::string::npos) {
      std::fprintf(stderr, "burst_client: no clock_ns in the stats\n");
      return 1;
    }
    if (after - before < best_rtt_ns) {
      best_rtt_ns = after - before;
      offset_ns = (before + after) / 2 - std::stoll(stats.substr(at + 11));
    }
  }

  std::vector<std::string> requests;
  for (int i = 0; i < n; ++i) requests.push_back(request("b" + std::to_string(i)));
  // Stamped before and after each send: on loopback the bytes are in the server's socket
  // when send returns, and a send that took long was one this thread was descheduled in.
  std::vector<std::int64_t> before_ns(static_cast<std::size_t>(n));
  std::vector<std::int64_t> after_ns(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    before_ns[i] = mono_ns();
    send_all(fds[i], requests[i]);
    after_ns[i] = mono_ns();
  }
  await_responses(fds, "burst");

  std::printf("# offset_ns=%lld offset_uncertainty_ns=%lld\n", static_cast<long long>(offset_ns),
              static_cast<long long>(best_rtt_ns / 2));
  for (int i = 0; i < n; ++i) {
    std::printf("b%d,%lld,%lld\n", i, static_cast<long long>(before_ns[i]),
                static_cast<long long>(after_ns[i]));
  }
  for (int fd : fds) close(fd);
  return 0;
}
