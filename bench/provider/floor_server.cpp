// The floor of the benchmark: the least a server can do per request and still answer wrk's
// keep-alive GETs with fakeprovider's 429 (the same bytes, a fixed Date). No HTTP parsing
// past the end of the headers, no limiter, no log: what is left is the kernel's work and the
// syscalls. Two ways to wait:
//   epoll   one recv and one send per request (what nginx and fakeprovider do), each thread
//           its own SO_REUSEPORT listener and epoll set
//   uring   io_uring: the recvs and sends of every ready connection submitted together, one
//           io_uring_enter per batch (built only with liburing: -DWITH_URING -luring)
// Usage: floor_server epoll|uring THREADS   (prints the port it listens on, on 127.0.0.1)
// Not a server anyone should run: it answers anything with a 429 and never closes a keep-alive
// connection itself. It stops on SIGTERM or SIGINT.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#ifdef WITH_URING
#include <liburing.h>
#endif

namespace {

constexpr std::string_view kAnswer =
    "HTTP/1.1 429 Too Many Requests\r\nDate: Tue, 01 Dec 2026 17:47:44 GMT\r\n"
    "Content-Type: application/json\r\nRetry-After: 60\r\nRateLimit-Limit: 1\r\n"
    "RateLimit-Remaining: 0\r\nRateLimit-Reset: 60\r\nContent-Length: 182\r\n\r\n"
    R"({"type":"error","error":{"type":"rate_limit_error","reason":"request_rate_exceeded",)"
    R"("message":"Number of requests has exceeded your rate limit; retry after the time in Retry-After"}})";
constexpr std::size_t kBuf = 4096;
constexpr int kMaxFd = 65536;

std::atomic<bool> stopping{false};

int listener(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 4096) != 0) {
    perror("floor_server: bind/listen");
    std::exit(1);
  }
  return fd;
}

int bound_port(int fd) {
  sockaddr_in a{};
  socklen_t n = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  return ntohs(a.sin_port);
}

// Per connection: the bytes of a request whose headers have not ended yet.
struct Conn {
  std::string partial;
};

// How many requests' headers end in what came in; the unfinished rest stays in c.partial.
std::size_t complete_requests(Conn& c, const char* data, std::size_t n) {
  c.partial.append(data, n);
  std::size_t count = 0, from = 0;
  for (std::size_t at; (at = c.partial.find("\r\n\r\n", from)) != std::string::npos;) {
    ++count;
    from = at + 4;
  }
  c.partial.erase(0, from);
  return count;
}

void send_answers(int fd, std::size_t count, std::string& out) {
  if (count == 1) {
    send(fd, kAnswer.data(), kAnswer.size(), MSG_NOSIGNAL);
    return;
  }
  out.clear();
  for (std::size_t i = 0; i < count; ++i) out.append(kAnswer);
  send(fd, out.data(), out.size(), MSG_NOSIGNAL);
}

void run_epoll(int lfd) {
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{EPOLLIN, {.fd = lfd}};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  std::vector<Conn> conns(kMaxFd);
  std::vector<epoll_event> events(512);
  char buf[kBuf];
  std::string out;
  while (!stopping.load(std::memory_order_relaxed)) {
    const int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 200);
    for (int i = 0; i < n; ++i) {
      const int fd = events[static_cast<std::size_t>(i)].data.fd;
      if (fd == lfd) {
        for (int c; (c = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
          epoll_event cev{EPOLLIN, {.fd = c}};
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
        }
        continue;
      }
      const ssize_t got = recv(fd, buf, sizeof buf, 0);
      if (got <= 0) {
        conns[static_cast<std::size_t>(fd)].partial.clear();
        close(fd);
        continue;
      }
      const std::size_t count = complete_requests(conns[static_cast<std::size_t>(fd)], buf,
                                                  static_cast<std::size_t>(got));
      if (count > 0) send_answers(fd, count, out);
    }
  }
}

#ifdef WITH_URING
// user_data: the fd in the low 32 bits, what finished above them.
enum Op : std::uint64_t { kAccept = 1, kRecv = 2, kSend = 3 };
std::uint64_t tag(Op op, int fd) {
  return (static_cast<std::uint64_t>(op) << 32) | static_cast<std::uint32_t>(fd);
}

struct UringConn {
  Conn conn;
  char buf[kBuf];
  std::string out;
};

void run_uring(int lfd) {
  io_uring ring{};
  io_uring_params p{};
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (io_uring_queue_init_params(4096, &ring, &p) != 0) {
    std::fprintf(stderr, "floor_server: io_uring_queue_init failed\n");
    std::exit(1);
  }
  std::vector<UringConn> conns(kMaxFd);
  const auto sqe = [&ring] {
    io_uring_sqe* s = io_uring_get_sqe(&ring);
    if (!s) {
      io_uring_submit(&ring);
      s = io_uring_get_sqe(&ring);
    }
    return s;
  };
  const auto arm_recv = [&](int fd) {
    io_uring_sqe* s = sqe();
    io_uring_prep_recv(s, fd, conns[static_cast<std::size_t>(fd)].buf, kBuf, 0);
    io_uring_sqe_set_data64(s, tag(kRecv, fd));
  };
  io_uring_sqe* a = sqe();
  io_uring_prep_multishot_accept(a, lfd, nullptr, nullptr, SOCK_CLOEXEC);
  io_uring_sqe_set_data64(a, tag(kAccept, lfd));
  __kernel_timespec wait{0, 200'000'000};
  while (!stopping.load(std::memory_order_relaxed)) {
    io_uring_cqe* cqe = nullptr;
    io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &wait, nullptr);
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      const auto op = static_cast<Op>(cqe->user_data >> 32);
      const int fd = static_cast<int>(cqe->user_data & 0xffffffffu);
      if (op == kAccept) {
        if (cqe->res >= 0) arm_recv(cqe->res);
        continue;
      }
      UringConn& c = conns[static_cast<std::size_t>(fd)];
      if (op == kSend) {
        arm_recv(fd);
        continue;
      }
      if (cqe->res <= 0) {
        c.conn.partial.clear();
        close(fd);
        continue;
      }
      const std::size_t count =
          complete_requests(c.conn, c.buf, static_cast<std::size_t>(cqe->res));
      if (count == 0) {
        arm_recv(fd);
        continue;
      }
      c.out.clear();
      for (std::size_t i = 0; i < count; ++i) c.out.append(kAnswer);
      io_uring_sqe* s = sqe();
      io_uring_prep_send(s, fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      io_uring_sqe_set_data64(s, tag(kSend, fd));
    }
    io_uring_cq_advance(&ring, seen);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: floor_server epoll|uring THREADS\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int threads = std::atoi(argv[2]);
#ifndef WITH_URING
  if (mode == "uring") {
    std::fprintf(stderr, "floor_server: built without liburing\n");
    return 2;
  }
#endif
  if ((mode != "epoll" && mode != "uring") || threads < 1) {
    std::fprintf(stderr, "usage: floor_server epoll|uring THREADS\n");
    return 2;
  }
  std::signal(SIGTERM, [](int) { stopping = true; });
  std::signal(SIGINT, [](int) { stopping = true; });
  std::vector<int> fds{listener(0)};
  const int port = bound_port(fds[0]);
  for (int i = 1; i < threads; ++i) fds.push_back(listener(port));
  std::printf("%d\n", port);
  std::fflush(stdout);
  std::vector<std::thread> pool;
  for (int fd : fds) {
#ifdef WITH_URING
    if (mode == "uring") {
      pool.emplace_back(run_uring, fd);
      continue;
    }
#endif
    pool.emplace_back(run_epoll, fd);
  }
  for (auto& t : pool) t.join();
}
