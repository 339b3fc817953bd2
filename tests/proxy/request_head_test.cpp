// What proxy mode forwards is exactly what the provider decided on (issue 38): a request head
// that an upstream could read otherwise is refused before the provider model and never
// reaches the upstream. The upstream here is a raw socket that keeps every byte it reads, so
// "never reaches" is no bytes at all, and a lenient reader's count of the requests in what it
// read is the test's.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/ports.hpp"

using namespace support;
using nlohmann::json;

namespace {

constexpr int kCloseBoundMs = 15'000;

// A loopback upstream over raw sockets: keeps every byte read from every connection, and
// answers each request it frames (a head, then a body of its Content-Length, which is how
// fakeprovider sends them) with a 200 of two bytes.
class RawUpstream {
 public:
  RawUpstream() {
    listen_fd_ = support::listen_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawUpstream() {
    stop_ = true;
    thread_.join();
    for (auto& [fd, _] : pending_) close(fd);
    close(listen_fd_);
  }
  RawUpstream(const RawUpstream&) = delete;
  RawUpstream& operator=(const RawUpstream&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every byte read, the connections' in the order they were read.
  std::string bytes() {
    std::lock_guard lock(mu_);
    return bytes_;
  }
  // How many request lines a reader that takes any "METHOD target HTTP/1.1" line for a
  // request finds in what was read: what a lenient upstream would have served.
  int request_lines() {
    const std::string b = bytes();
    int n = 0;
    for (auto at = b.find(" HTTP/1.1\r\n"); at != std::string::npos;
         at = b.find(" HTTP/1.1\r\n", at + 1))
      ++n;
    return n;
  }

 private:
  void serve() {
    while (!stop_) {
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      for (auto& [fd, _] : pending_) fds.push_back({fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) pending_[fd] = {};
      }
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents) read_from(fds[i].fd);
      }
    }
  }

  void read_from(int fd) {
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      close(fd);
      pending_.erase(fd);
      return;
    }
    {
      std::lock_guard lock(mu_);
      bytes_.append(buf, static_cast<std::size_t>(n));
    }
    std::string& b = pending_[fd];
    b.append(buf, static_cast<std::size_t>(n));
    for (auto end = b.find("\r\n\r\n"); end != std::string::npos; end = b.find("\r\n\r\n")) {
      std::size_t length = end + 4;
      const auto cl = b.find("Content-Length: ");
      if (cl != std::string::npos && cl < end) length += std::stoul(b.substr(cl + 16));
      if (b.size() < length) return;
      b.erase(0, length);
      const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
      [[maybe_unused]] const auto w = write(fd, ok.data(), ok.size());
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::map<int, std::string> pending_;
  std::mutex mu_;
  std::string bytes_;
};

struct Hostile {
  const char* name;
  std::string bytes;
  int status;
};

// A request a lenient reader finds in a body: what a smuggled request looks like.
const std::string kSmuggled = "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";

std::string with_smuggled_body(const std::string& head_fields) {
  return "POST /a HTTP/1.1\r\nHost: x\r\n" + head_fields +
         "Content-Length: " + std::to_string(kSmuggled.size()) + "\r\n\r\n" + kSmuggled;
}

std::string error_reason(const Response& r) {
  const auto body = json::parse(r.body, nullptr, false);
  return body.is_object() ? body.at("error").at("reason").get<std::string>() : "";
}

// Sends h on a fresh connection: answered h.status for its head, and closed.
void check_refused(int port, const Hostile& h) {
  CAPTURE(std::string(h.name));
  Connection c(port);
  REQUIRE(c.ok());
  c.send_raw(h.bytes);
  const Response r = c.read_response();
  CHECK(r.status == h.status);
  CHECK(error_reason(r) == "request_head");
  CHECK(r.header("connection") == "close");
  CHECK(c.closed_within(kCloseBoundMs));
}

}  // namespace

TEST_CASE(
    "proxy: a head RFC 9112 refuses is 400, CONNECT 405, before the provider counts it, and "
    "the upstream reads nothing of it") {
  RawUpstream up;
  FakeProvider p({"--upstream", up.url()});
  REQUIRE(p.started());
  const std::vector<Hostile> cases{
      {"whitespace before a colon", with_smuggled_body("Transfer-Encoding : chunked\r\n"), 400},
      {"a tab before a colon", with_smuggled_body("Transfer-Encoding\t: chunked\r\n"), 400},
      {"a bare CR in a value", with_smuggled_body("X-Note: a\rTransfer-Encoding: chunked\r\n"),
       400},
      {"obs-fold, a space", "GET /a HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n b\r\n\r\n", 400},
      {"obs-fold, a tab", "GET /a HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n\tb\r\n\r\n", 400},
      {"obs-fold of the first field", "GET /a HTTP/1.1\r\n y: z\r\nHost: x\r\n\r\n", 400},
      {"obs-fold, no colon", "GET /a HTTP/1.1\r\nHost: x\r\n y\r\n\r\n", 400},
      {"two spaces after the method", "GET  /a HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"a NUL in a value", std::string("GET /a HTTP/1.1\r\nHost: x\r\nX-Note: a\0b\r\n\r\n", 41),
       400},
      {"a bare LF", "GET /a HTTP/1.1\r\nHost: x\nX-B: c\r\n\r\n", 400},
      {"a control byte in the target",
       "GET /a\x01"
       "b HTTP/1.1\r\nHost: x\r\n\r\n",
       400},
      {"DEL in the target",
       "GET /a\x7f"
       "b HTTP/1.1\r\nHost: x\r\n\r\n",
       400},
      {"a tab in the target", "GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"a control byte in a value",
       "GET /a HTTP/1.1\r\nHost: x\r\nX-Note: a\x01"
       "b\r\n\r\n",
       400},
      {"a field name that is not a token", "GET /a HTTP/1.1\r\nHost: x\r\nX(N): v\r\n\r\n", 400},
      {"an empty field name", "GET /a HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n", 400},
      {"a method that is not a token", "G(T /a HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 405},
  };
  for (const auto& h : cases) check_refused(p.data_port(), h);
  const json stats = p.stats();
  CHECK(stats["requests"] == 0);
  // A request the provider admits goes through after them all: the upstream read that one.
  CHECK(http(p.data_port(), "GET", "/after").status == 200);
  CHECK(up.request_lines() == 1);
  CHECK(up.bytes().starts_with("GET /after HTTP/1.1\r\n"));
}

TEST_CASE("proxy: a repeated tenant header is 400, neither counted nor forwarded") {
  RawUpstream up;
  FakeProvider p({"--upstream", up.url()});
  REQUIRE(p.started());
  check_refused(p.data_port(),
                {"X-Api-Key twice",
                 "GET /a HTTP/1.1\r\nHost: x\r\nX-Api-Key: alice\r\nx-api-key: bob\r\n\r\n", 400});
  CHECK(p.stats()["requests"] == 0);
  CHECK(up.bytes().empty());
  // Once is served, and counted against that tenant.
  CHECK(http(p.data_port(), "GET", "/a", {{"X-Api-Key", "alice"}}).status == 200);
  CHECK(up.request_lines() == 1);
  CHECK(p.stats()["requests"] == 1);
}

TEST_CASE("proxy: a chunked body over --max-body is 413 and not counted as admitted") {
  RawUpstream up;
  FakeProvider p({"--upstream", up.url(), "--max-body", "1KiB"});
  REQUIRE(p.started());
  const std::string chunk(2000, 'x');
  Connection c(p.data_port());
  c.send_raw("POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n" + chunk +
             "\r\n0\r\n\r\n");
  CHECK(c.read_response().status == 413);
  CHECK(p.stats()["requests"] == 0);
  CHECK(p.stats()["totals"]["ok"] == 0);
  CHECK(up.bytes().empty());
  // One that fits is decided once its body is in, and forwarded.
  c.send_raw(
      "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
  CHECK(c.read_response().status == 200);
  CHECK(p.stats()["totals"]["ok"] == 1);
  CHECK(up.request_lines() == 1);
}

TEST_CASE(
    "proxy: framing an upstream could read otherwise (CL.TE, TE.CL, a repeated Content-Length) "
    "is 400 and never forwarded") {
  RawUpstream up;
  FakeProvider p({"--upstream", up.url()});
  REQUIRE(p.started());
  const std::string length = "Content-Length: " + std::to_string(kSmuggled.size()) + "\r\n";
  const std::vector<std::string> requests{
      // CL.TE and TE.CL: the length first or the chunked coding first.
      with_smuggled_body("Transfer-Encoding: chunked\r\n"),
      "POST /a HTTP/1.1\r\nHost: x\r\n" + length + "Transfer-Encoding: chunked\r\n\r\n" + kSmuggled,
      // A repeated Content-Length, of another value or the same.
      with_smuggled_body("Content-Length: 3\r\n"), with_smuggled_body(length)};
  for (const auto& request : requests) {
    CAPTURE(request);
    Connection c(p.data_port());
    REQUIRE(c.ok());
    c.send_raw(request);
    const Response r = c.read_response();
    CHECK(r.status == 400);
    CHECK(error_reason(r) == "request_framing");
    CHECK(c.closed_within(kCloseBoundMs));
  }
  CHECK(p.stats()["requests"] == 0);
  CHECK(up.bytes().empty());
}

TEST_CASE(
    "proxy: pipelined requests past the allowance are answered by the provider; the upstream "
    "reads exactly the admitted ones") {
  RawUpstream up;
  FakeProvider p({"--upstream", up.url(), "--allowance", "2/min", "--limiter", "fixed-window"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  REQUIRE(c.ok());
  std::string pipelined;
  for (int i = 0; i < 4; ++i)
    pipelined += "GET /p" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  c.send_raw(pipelined);
  std::vector<int> statuses;
  for (int i = 0; i < 4; ++i) statuses.push_back(c.read_response().status);
  CHECK(statuses == std::vector<int>{200, 200, 429, 429});
  CHECK(up.request_lines() == 2);
  CHECK(up.bytes().find("GET /p2 ") == std::string::npos);
}

TEST_CASE("proxy: hop-by-hop fields never reach the upstream") {
  RawUpstream up;
  FakeProvider p({"--upstream", up.url()});
  REQUIRE(p.started());
  Connection c(p.data_port());
  c.send_raw(
      "GET /h HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
      "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTE: trailers\r\n"
      "Upgrade: h2c\r\nX-End: kept\r\n\r\n");
  CHECK(c.read_response().status == 200);
  const std::string seen = up.bytes();
  CHECK(seen.find("X-End: kept\r\n") != std::string::npos);
  for (const char* hop : {"Connection:", "X-Hop:", "Keep-Alive:", "Proxy-Connection:", "TE:",
                          "Upgrade:", "Host: x"}) {
    CAPTURE(hop);
    CHECK(seen.find(hop) == std::string::npos);
  }
}
