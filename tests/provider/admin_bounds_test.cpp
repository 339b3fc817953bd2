// What a client of the admin API can cost the provider, token or not (issue 14): bodies,
// trickled requests, stats documents over many tenants, a second provider on the same port.
//
// The waits are safety bounds (a test that would otherwise hang fails instead), never the
// thing checked: what is checked is who was answered, who was cut, what was read and how much
// memory the provider kept.
#include <doctest/doctest.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "live/provider_admin.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/sanitized.hpp"

using namespace support;

namespace {

constexpr int kSafetyMs = 20'000;
constexpr std::size_t kMiB = 1 << 20;

// The provider's resident memory, from /proc.
std::int64_t rss_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

// A socket of the test's own: the harness's Connection gives up on a send silently, and what
// is measured here is how much the server took before it closed.
int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{10, 0};  // a server that stops reading without closing ends the send too
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends head, then body_piece up to pieces times; the bytes of body the server took before
// it closed the connection (or stopped reading).
std::size_t send_body(int port, const std::string& head, const std::string& body_piece,
                      std::size_t pieces) {
  const int fd = connect_to(port);
  if (fd < 0) return 0;
  std::size_t sent = 0;
  bool ok = ::send(fd, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size());
  for (std::size_t i = 0; ok && i < pieces; ++i) {
    std::size_t off = 0;
    while (ok && off < body_piece.size()) {
      const auto n = ::send(fd, body_piece.data() + off, body_piece.size() - off, MSG_NOSIGNAL);
      ok = n > 0;
      if (ok) off += static_cast<std::size_t>(n);
    }
    sent += off;
  }
  close(fd);
  return sent;
}

// Requests from `tenants` distinct X-Api-Key values, pipelined in batches on a few
// connections; the count answered 200.
int burst_of_tenants(int port, int tenants) {
  constexpr int kConnections = 4;
  constexpr int kBatch = 500;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < kConnections; ++k) {
    threads.emplace_back([&, k] {
      Connection c(port);
      const int from = k * tenants / kConnections, to = (k + 1) * tenants / kConnections;
      for (int at = from; at < to; at += kBatch) {
        const int n = std::min(kBatch, to - at);
        std::string batch;
        for (int i = at; i < at + n; ++i) {
          batch +=
              "GET / HTTP/1.1\r\nHost: x\r\nX-Api-Key: tenant-" + std::to_string(i) + "\r\n\r\n";
        }
        c.send_raw(batch);
        for (int i = 0; i < n; ++i) ok += c.read_response().status == 200 ? 1 : 0;
      }
    });
  }
  for (auto& t : threads) t.join();
  return ok.load();
}

stampede::ProviderAdmin loadgens_view(const RecordingProvider& p) {
  const auto url = stampede::parse_target_url("http://127.0.0.1:" + std::to_string(p.admin_port()));
  REQUIRE(url);
  return stampede::ProviderAdmin(*url, "");
}

// Connections that each send a request a byte at a time, round after round, from a thread
// of their own until destroyed.
class Tricklers {
 public:
  Tricklers(int port, int n, const std::string& head, int pause_ms) {
    for (int i = 0; i < n; ++i) conns_.push_back(std::make_unique<Connection>(port));
    thread_ = std::thread([this, head, pause_ms] {
      for (std::size_t at = 0; !stop_; ++at) {
        const std::string byte = at < head.size() ? head.substr(at, 1) : "a";
        for (auto& c : conns_) c->send_raw(byte);
        ++rounds_;
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
      }
    });
  }
  ~Tricklers() {
    stop_ = true;
    thread_.join();
  }
  bool wait_rounds(int n) const {
    for (int i = 0; i < kSafetyMs / 10 && rounds_ < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return rounds_ >= n;
  }

 private:
  std::vector<std::unique_ptr<Connection>> conns_;
  std::atomic<bool> stop_{false};
  std::atomic<int> rounds_{0};
  std::thread thread_;
};

// Sends a piece of a request every pause_ms until the server closes the connection (true),
// or kSafetyMs pass (false).
bool trickled_until_closed(int port, const std::string& head, int pause_ms) {
  Connection c(port);
  c.send_raw(head);
  for (int waited = 0; waited < kSafetyMs; waited += pause_ms) {
    if (c.closed_within(pause_ms)) return true;
    c.send_raw("a");
  }
  return false;
}

}  // namespace

TEST_CASE("admin: a request body beyond 64 KiB is cut unread, chunked or not, and it serves on") {
  RecordingProvider p({});
  REQUIRE(p.started());
  const std::string mib(kMiB, 'b');
  // 64 MiB offered: a server that reads it all (and keeps it, for a route with no body
  // reader) takes it all; one that stops at its limit closes after its socket buffers fill.
  constexpr std::size_t kPieces = 64;
  SUBCASE("declared 4 GiB, to a route that takes no body") {
    CHECK(send_body(p.admin_port(),
                    "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 4294967296\r\n\r\n", mib,
                    kPieces) < kPieces * kMiB / 4);
  }
  SUBCASE("chunked, endless") {
    CHECK(send_body(p.admin_port(),
                    "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                    "100000\r\n" + mib + "\r\n", kPieces) < kPieces * kMiB / 4);
  }
  SUBCASE("declared 4 GiB to POST /admin/reset, which is not obeyed") {
    REQUIRE(http(p.data_port(), "GET", "/").status == 200);
    CHECK(send_body(p.admin_port(),
                    "POST /admin/reset HTTP/1.1\r\nHost: x\r\nContent-Length: 4294967296\r\n\r\n",
                    mib, kPieces) < kPieces * kMiB / 4);
    CHECK(p.stats().at("requests") == 1);
  }
  SUBCASE("a small body is read and ignored, as before") {
    const auto r = http(p.admin_port(), "POST", "/admin/reset", {}, std::string(1000, '{'));
    CHECK(r.status == 200);
  }
  CHECK(http(p.admin_port(), "GET", "/healthz").status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE(
    "admin: a dozen connections trickling requests leave /healthz and loadgen's calls answered") {
  RecordingProvider p({});
  REQUIRE(p.started());
  {
    // A byte every 200 ms: each read comes well within any per-read timeout.
    Tricklers tricklers(p.admin_port(), 12, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", 200);
    REQUIRE(tricklers.wait_rounds(3));
    CHECK(http(p.admin_port(), "GET", "/healthz").status == 200);
    // What `loadgen run --provider-admin` does, with its own timeout.
    const auto admin = loadgens_view(p);
    const auto reset = admin.reset();
    CHECK_MESSAGE(!reset, reset.value_or(""));
    const auto stats = admin.stats();
    CHECK_MESSAGE(stats, stats.error());
  }
  CHECK(p.stop() == 0);
}

TEST_CASE("slow: admin: a request trickled past the request deadline is cut, head or body" *
          doctest::skip(!slow_tests())) {
  RecordingProvider p({});
  REQUIRE(p.started());
  // A byte every 500 ms: every read is far within the per-read timeout, the whole far beyond
  // the deadline for a request.
  CHECK(trickled_until_closed(p.admin_port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", 500));
  CHECK(trickled_until_closed(
      p.admin_port(), "POST /admin/reset HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
      500));
  CHECK(http(p.admin_port(), "GET", "/healthz").status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("admin: repeated stats and metrics over 50,000 tenants cost about their text" *
          doctest::test_suite("long")) {
  RecordingProvider p({});
  REQUIRE(p.started());
  // Under a sanitizer the resident size is not judged (below): a tenth of the tenants runs the
  // same code, where 50,000 took 154 s of CI's TSan tree.
  constexpr int kTenants = support::kSanitized ? 5'000 : 50'000;
  const std::string last = "tenant-" + std::to_string(kTenants - 1);
  REQUIRE(burst_of_tenants(p.data_port(), kTenants) == kTenants);
  const std::int64_t before = rss_bytes(p.pid());
  REQUIRE(before > 0);
  std::int64_t most = before;
  std::size_t length = 0;
  for (int call = 0; call < 3; ++call) {
    // A connection each: checking an answer may take longer than the 2 s a kept-alive one
    // may idle.
    const auto r = http(p.admin_port(), "GET", "/admin/stats");
    REQUIRE(r.status == 200);
    length = r.body.size();
    CHECK(r.header_int("content-length") == static_cast<std::int64_t>(length));
    if (call == 0) {
      // Whole and exact, without building a DOM of it here either.
      CHECK(nlohmann::json::accept(r.body));
      std::size_t entries = 0;
      for (auto at = r.body.find("\"requests\":"); at != std::string::npos;
           at = r.body.find("\"requests\":", at + 1))
        ++entries;
      CHECK(entries == kTenants + 1);
      CHECK(r.body.find("\"" + last + "\":{") != std::string::npos);
    }
    most = std::max(most, rss_bytes(p.pid()));
    const auto m = http(p.admin_port(), "GET", "/metrics");
    REQUIRE(m.status == 200);
    CHECK(m.body.find("fakeprovider_tenant_requests_total{tenant=\"" + last +
                      "\",outcome=\"ok\"} 1\n") != std::string::npos);
    most = std::max(most, rss_bytes(p.pid()));
  }
  CAPTURE(length);
  CAPTURE(before);
  CAPTURE(most);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizers' allocators keep freed memory on purpose (quarantine, shadow): the
  // resident size says nothing about the provider's own there.
#else
  // As a DOM each stats call kept about 8 times the text on the thread that answered it, and
  // each metrics page about 5 times its own.
  CHECK(most - before < static_cast<std::int64_t>(2 * length + 16 * kMiB));
#endif
  CHECK(p.stop() == 0);
  // --stats-out is the same document, also made a piece at a time.
  const std::string written = read_file(p.stats_path());
  CHECK(nlohmann::json::accept(written));
  CHECK(written.find("\"" + last + "\":{") != std::string::npos);
}

TEST_CASE("admin: a Range request gets the whole stats document") {
  RecordingProvider p({});
  REQUIRE(p.started());
  REQUIRE(http(p.data_port(), "GET", "/", {{"X-Api-Key", "k"}}).status == 200);
  // Many ranges would each make the document again from the start.
  std::string ranges = "bytes=0-0";
  for (int i = 1; i < 1000; ++i) ranges += "," + std::to_string(i) + "-" + std::to_string(i);
  for (const std::string& range : {std::string("bytes=0-10"), ranges}) {
    const auto r = http(p.admin_port(), "GET", "/admin/stats", {{"Range", range}});
    CHECK(r.status == 200);
    CHECK(nlohmann::json::parse(r.body).at("tenants").contains("k"));
  }
  CHECK(p.stop() == 0);
}

TEST_CASE("admin: a second fakeprovider on an admin port in use exits 1, the first serves on") {
  RecordingProvider first({});
  REQUIRE(first.started());
  const std::string in_use = "127.0.0.1:" + std::to_string(first.admin_port());
  const auto second = run_provider_to_exit({"--listen", "127.0.0.1:0", "--admin-listen", in_use});
  CHECK(second.code == 1);
  CHECK(second.out.find("admin on") == std::string::npos);
  CHECK(second.err.rfind("fakeprovider: --admin-listen: cannot listen on " + in_use + ": ", 0) ==
        0);
  CHECK(std::count(second.err.begin(), second.err.end(), '\n') == 1);
  // The data port, likewise (as it always did).
  const auto third =
      run_provider_to_exit({"--listen", "127.0.0.1:" + std::to_string(first.data_port()),
                            "--admin-listen", "127.0.0.1:0"});
  CHECK(third.code == 1);
  // Every stats call reaches the first: its own count, each time.
  REQUIRE(http(first.data_port(), "GET", "/").status == 200);
  for (int i = 0; i < 4; ++i) CHECK(first.stats().at("requests") == 1);
  CHECK(first.stop() == 0);
}
