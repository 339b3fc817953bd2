// Hostile clients against the real fakeprovider: idle hoarders, slowloris, oversized bodies,
// pipelined garbage, more connections than it may hold. Whatever they do, a well-behaved client
// on its own connection is still answered and the server still stops cleanly. (Malformed
// request lines and oversized headers: tests/provider/data_plane_test.cpp.)
//
// The waits below are safety bounds on the server's own timeouts, never the thing checked:
// what is checked is who was closed, who was answered and what was logged.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"

using namespace support;

namespace {

constexpr int kSafetyMs = 20'000;

std::vector<std::unique_ptr<Connection>> open_idle(int port, int n) {
  std::vector<std::unique_ptr<Connection>> conns;
  for (int i = 0; i < n; ++i) conns.push_back(std::make_unique<Connection>(port));
  return conns;
}

// The test's own descriptors: as many sockets as the hard limit allows.
void raise_own_descriptor_limit() {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
}

// Sends a request one small piece at a time, pausing between pieces, until the server closes
// the connection (true) or the pieces run out (false).
bool trickle_until_closed(Connection& c, int pieces, int pause_ms) {
  c.send_raw("GET /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  for (int i = 0; i < pieces; ++i) {
    if (c.closed_within(pause_ms)) return true;
    c.send_raw("X-S: " + std::to_string(i) + "\r\n");
  }
  return false;
}

// The counts in the provider's refusal lines for one kind ("N what"), added up. (No <regex>:
// GCC 12 warns inside it under the sanitizers.)
long long logged(const std::string& err, const std::string& what) {
  long long n = 0;
  const std::string needle = " " + what;
  for (std::size_t at = err.find(needle); at != std::string::npos; at = err.find(needle, at + 1)) {
    std::size_t digits = at;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(err[digits - 1]))) --digits;
    if (digits < at) n += std::stoll(err.substr(digits, at - digits));
  }
  return n;
}

long long refusal_lines(const std::string& err) {
  long long n = 0;
  std::size_t at = 0;
  while ((at = err.find("fakeprovider: connections ", at)) != std::string::npos) {
    ++n;
    ++at;
  }
  return n;
}

// A request is answered 200 once the server has noticed closed connections and made room.
// unanswered: if given, counts the attempts that were not answered (refused while the server
// still counts connections that are closing).
bool answered_soon(int port, int* unanswered = nullptr) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSafetyMs);
  while (std::chrono::steady_clock::now() < end) {
    if (http(port, "GET", "/").status == 200) return true;
    if (unanswered) ++*unanswered;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void idle_hoarders_do_not_starve(int hoarders) {
  raise_own_descriptor_limit();
  RecordingProvider p({"--idle-timeout", "2s"});
  REQUIRE(p.started());
  auto idle = open_idle(p.data_port(), hoarders);
  for (const auto& c : idle) REQUIRE(c->ok());
  // Held, all of them, and a newcomer is answered meanwhile, on a fresh connection and again on
  // a kept-alive one.
  Connection good(p.data_port());
  CHECK(good.request("GET", "/v1/messages").status == 200);
  CHECK(good.request("GET", "/v1/messages").status == 200);
  CHECK(http(p.data_port(), "GET", "/").status == 200);
  // Silent past --idle-timeout: every hoarder is closed by the server.
  int closed = 0;
  for (const auto& c : idle) closed += c->closed_within(kSafetyMs) ? 1 : 0;
  CHECK(closed == hoarders);
  CHECK(http(p.data_port(), "GET", "/").status == 200);
  CHECK(p.stop() == 0);
}

}  // namespace

TEST_CASE("200 idle connections are held until --idle-timeout and a newcomer is still answered") {
  idle_hoarders_do_not_starve(200);
}

TEST_CASE("slow: 5,000 idle connections are held and a newcomer is still answered" *
          doctest::skip(!slow_tests())) {
  idle_hoarders_do_not_starve(5000);
}

TEST_CASE("slowloris is cut after --header-timeout, a connection idle between requests is not") {
  RecordingProvider p({"--header-timeout", "500ms"});
  REQUIRE(p.started());
  // A client that sleeps on its open connection between retries, far past the header timeout.
  Connection sleeper(p.data_port());
  REQUIRE(sleeper.request("GET", "/v1/messages").status == 200);

  // Headers trickled from the first byte, and after a complete first request.
  Connection fresh(p.data_port());
  CHECK(trickle_until_closed(fresh, 200, 100));
  Connection reused(p.data_port());
  REQUIRE(reused.request("GET", "/v1/messages").status == 200);
  CHECK(trickle_until_closed(reused, 200, 100));

  CHECK_FALSE(sleeper.closed_within(0));
  CHECK(sleeper.request("GET", "/v1/messages").status == 200);
  CHECK(p.stop() == 0);
  CHECK(logged(p.err(), "closed for request headers slower than --header-timeout") == 2);
}

TEST_CASE("--header-timeout 0s keeps a trickling client, which finishes its request") {
  RecordingProvider p({"--header-timeout", "0s"});
  REQUIRE(p.started());
  Connection slow(p.data_port());
  CHECK_FALSE(trickle_until_closed(slow, 8, 150));
  slow.send_raw("\r\n");
  CHECK(slow.read_response().status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("oversized bodies and pipelined garbage: answered or closed, and the server serves on") {
  RecordingProvider p({});
  REQUIRE(p.started());
  SUBCASE("a 4 MiB body is read, dropped and answered") {
    Connection c(p.data_port());
    CHECK(c.request("POST", "/v1/messages", {}, std::string(4 << 20, 'b')).status == 200);
    CHECK(c.request("GET", "/v1/messages").status == 200);
  }
  SUBCASE("a body far longer than announced stops at the announced length") {
    Connection c(p.data_port());
    c.send_raw("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n12345" +
               std::string(64 << 10, 'z'));
    CHECK(c.read_response().status == 200);
    CHECK(c.closed_within(kSafetyMs));
  }
  SUBCASE("a body announced at 1 TiB and abandoned") {
    Connection c(p.data_port());
    c.send_raw("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1099511627776\r\n\r\n" +
               std::string(1 << 20, 'x'));
  }
  SUBCASE("a hundred pipelined requests get a hundred answers, in order") {
    Connection c(p.data_port());
    std::string burst;
    for (int i = 0; i < 100; ++i)
      burst += "GET /v1/" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n";
    c.send_raw(burst);
    int answered = 0;
    for (int i = 0; i < 100; ++i) answered += c.read_response().status == 200 ? 1 : 0;
    CHECK(answered == 100);
  }
  SUBCASE("a good request with garbage pipelined behind it") {
    Connection c(p.data_port());
    c.send_raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n\x01\x02 NOT HTTP\r\n\r\n\xff\xfe\r\n\r\n");
    CHECK(c.read_response().status == 200);
    const auto second = c.read_response();
    CHECK((second.status == 0 || (second.status >= 400 && second.status < 500)));
  }
  CHECK(http(p.data_port(), "GET", "/").status == 200);
  CHECK(http(p.admin_port(), "GET", "/healthz").status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("connections beyond --max-connections are closed at once and logged in few lines") {
  RecordingProvider p({"--max-connections", "20", "--threads", "1"});
  REQUIRE(p.started());
  auto held = open_idle(p.data_port(), 20);
  for (const auto& c : held) REQUIRE(c->ok());
  // The held ones are in the daemon before the extra ones come: it answers one of them.
  REQUIRE(held.back()->request("GET", "/").status == 200);
  auto extra = open_idle(p.data_port(), 40);
  int refused = 0;
  for (const auto& c : extra) refused += c->closed_within(kSafetyMs) ? 1 : 0;
  CHECK(refused == 40);
  held.clear();
  // Room again: served as usual, once the server has seen the held ones go.
  int unanswered = 0;
  CHECK(answered_soon(p.data_port(), &unanswered));
  CHECK(p.stop() == 0);
  const std::string err = p.err();
  INFO(err);
  CHECK(logged(err, "refused at --max-connections") == 40 + unanswered);
  CHECK(refusal_lines(err) <= 2);
}

// It was split per thread, rounded down and dealt round-robin: a limit of 1 held 2, and a
// connection could be refused with half the limit open.
TEST_CASE("--max-connections is what the process holds at once, whatever its threads") {
  for (const auto& [limit, threads] : std::vector<std::pair<int, int>>{{1, 2}, {3, 2}, {4, 3}}) {
    CAPTURE(limit);
    CAPTURE(threads);
    RecordingProvider p(
        {"--max-connections", std::to_string(limit), "--threads", std::to_string(threads)});
    REQUIRE(p.started());
    auto held = open_idle(p.data_port(), limit);
    for (const auto& c : held) CHECK(c->request("GET", "/").status == 200);
    Connection extra(p.data_port());
    CHECK(extra.closed_within(kSafetyMs));
    held.pop_back();
    int unanswered = 0;
    CHECK(answered_soon(p.data_port(), &unanswered));
    CHECK(p.stop() == 0);
  }
}

TEST_CASE("bad --idle-timeout and --header-timeout values exit 2 with one line naming the flag") {
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"--idle-timeout", "0s"},
                                                        {"--idle-timeout", "1.5s"},
                                                        {"--idle-timeout", "soon"},
                                                        {"--header-timeout", "5"},
                                                        {"--header-timeout", "-1s"}}) {
    CAPTURE(flag);
    CAPTURE(value);
    const auto e = run_provider_to_exit(
        {"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", flag, value});
    CHECK(e.code == 2);
    CHECK(e.err.rfind("fakeprovider: " + flag + ": ", 0) == 0);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
}
