// fakeprovider --upstream in front of a real upstream (tests/proxy/upstream_server.py): what
// it admits reaches the upstream and comes back as the upstream sent it; what it refuses never
// leaves; the upstream's own refusals and failures are passed on and counted apart.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "proxy/proxy_support.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/ports.hpp"

using namespace support;
using nlohmann::json;

namespace {

std::vector<std::string> in_front_of(const UpstreamServer& up, std::vector<std::string> more = {}) {
  return with({"--upstream", up.url()}, more);
}

std::string base(const FakeProvider& p) {
  return "http://127.0.0.1:" + std::to_string(p.data_port());
}

std::int64_t upstream_count(const FakeProvider& p, const char* kind) {
  return p.stats()["upstream"][kind].get<std::int64_t>();
}

// The status line's code of curl's -D head (the last answer's, past a 100 Continue).
int status_of(const std::string& head) {
  const auto at = head.rfind("HTTP/1.1 ");
  return at == std::string::npos ? 0 : std::stoi(head.substr(at + 9, 3));
}

}  // namespace

TEST_CASE("admitted requests reach the upstream and come back byte-exact" *
          doctest::test_suite("long")) {
  UpstreamServer up;
  REQUIRE(up.started());
  FakeProvider p(in_front_of(up));
  REQUIRE(p.started());
  const std::string direct = up.url(), proxied = base(p);

  SUBCASE("binary bodies, of 5 MiB too") {
    for (const char* path : {"/bytes/1", "/bytes/65537", "/bytes/5242880"}) {
      CAPTURE(path);
      const auto theirs = fetch(direct + path), ours = fetch(proxied + path);
      CHECK(ours.code == 0);
      CHECK(status_of(ours.head) == 200);
      CHECK(ours.body.size() == theirs.body.size());
      CHECK(ours.body == theirs.body);
    }
  }
  SUBCASE("a chunked answer, decoded to the same bytes") {
    const auto ours = fetch(proxied + "/chunked");
    CHECK(ours.head.find("Transfer-Encoding: chunked") != std::string::npos);
    CHECK(ours.body == fetch(direct + "/chunked").body);
    CHECK(ours.body.size() == 70000);
  }
  SUBCASE("HEAD: the upstream's length, no body") {
    Connection c(p.data_port());
    c.send_raw("HEAD /bytes/4096 HTTP/1.1\r\nHost: x\r\n\r\n");
    REQUIRE(c.wait_for("\r\n\r\n", kSafetyTimeoutMs / 6));
    const std::string head = c.received();
    CHECK(head.find("HTTP/1.1 200") == 0);
    CHECK(head.find("Content-Length: 4096") != std::string::npos);
    // The next answer on the connection follows the head at once: no body came between.
    c.send_raw("GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n");
    REQUIRE(c.wait_for("\r\n\r\nHTTP/1.1 200", kSafetyTimeoutMs / 6));
    CHECK(c.received().find("\r\n\r\n") == head.size() - 4);
  }
  SUBCASE("204: no body, no length") {
    const auto ours = fetch(proxied + "/no-content");
    CHECK(status_of(ours.head) == 204);
    CHECK(ours.head.find("Content-Length") == std::string::npos);
    CHECK(ours.body.empty());
  }
  SUBCASE("a 5 MiB request body, the method and the target as they came") {
    TempDir dir;
    std::string body;
    for (int i = 0; body.size() < (5u << 20); ++i) body += static_cast<char>((i * 7919) & 0xff);
    write_file(dir.file("body"), body);
    const auto ours = fetch(proxied + "/echo/a%2Fb/../c?q=%20x&r=1",
                            {"-X", "PUT", "--path-as-is", "--data-binary", "@" + dir.file("body"),
                             "-H", "X-Api-Key: tenant-1", "-H", "Connection: keep-alive, X-Hop",
                             "-H", "X-Hop: gone", "-H", "X-Forwarded-For: 10.1.1.1"});
    CHECK(status_of(ours.head) == 200);
    CHECK(ours.body.size() == body.size());
    CHECK(ours.body == body);
    CHECK(ours.head.find("X-Echo-Method: PUT") != std::string::npos);
    CHECK(ours.head.find("X-Echo-Target: /echo/a%2Fb/../c?q=%20x&r=1") != std::string::npos);
    const auto at = ours.head.find("X-Echo-Headers: ");
    REQUIRE(at != std::string::npos);
    const json headers = json::parse(ours.head.substr(at + 16, ours.head.find('\r', at) - at - 16));
    std::map<std::string, std::string> seen;
    for (const auto& h : headers) seen[h[0].get<std::string>()] = h[1].get<std::string>();
    CHECK(seen["X-Api-Key"] == "tenant-1");  // stampede's own headers go on by default
    CHECK(seen["X-Forwarded-For"] == "10.1.1.1, 127.0.0.1");
    CHECK(seen["X-Forwarded-Proto"] == "http");
    CHECK(seen["Via"] == "1.1 stampede");
    CHECK(seen["Host"] == "127.0.0.1:" + std::to_string(up.port()));
    CHECK(seen.count("X-Hop") == 0);  // named by Connection: hop-by-hop
    CHECK(seen.count("Connection") == 0);
    CHECK(seen.count("Expect") == 0);
  }
}

TEST_CASE("the native server forwards: pipelined requests, each answered in its turn") {
  UpstreamServer up;
  REQUIRE(up.started());
  FakeProvider p(in_front_of(up, {"--http-server", "native"}));
  REQUIRE(p.started());
  Connection c(p.data_port());
  REQUIRE(c.ok());
  // Three on one write: each is forwarded once the answer before it is out.
  std::string pipelined;
  for (const std::string body : {"first", "second", "third"}) {
    pipelined += "POST /echo/" + body +
                 " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body;
  }
  c.send_raw(pipelined);
  for (const std::string body : {"first", "second", "third"}) {
    CAPTURE(body);
    const Response r = c.read_response();
    CHECK(r.status == 200);
    CHECK(r.body == body);
    CHECK(r.header("x-echo-target") == "/echo/" + body);
  }
  CHECK(up.served() == 3);
}

TEST_CASE(
    "the native server forwards once the provider decides: tokens from the body, a hop later") {
  UpstreamServer up;
  REQUIRE(up.started());
  const std::string tokens = R"({"max_tokens":600})";
  SUBCASE("--token-field: decided once the body is in, which then goes whole") {
    FakeProvider p(in_front_of(up, {"--http-server", "native", "--token-allowance", "1000/min",
                                    "--token-field", "max_tokens"}));
    REQUIRE(p.started());
    Connection c(p.data_port());
    const Response first = c.request("POST", "/echo", {}, tokens);
    CHECK(first.status == 200);
    CHECK(first.body == tokens);
    const Response second = c.request("POST", "/echo", {}, tokens);
    CHECK(second.status == 429);
    CHECK(up.served() == 1);
  }
  SUBCASE("--hop-delay: decided a hop after it came in, forwarded then") {
    FakeProvider p(in_front_of(up, {"--http-server", "native", "--hop-delay", "1ms,0ms",
                                    "--allowance", "1/min", "--limiter", "fixed-window"}));
    REQUIRE(p.started());
    Connection c(p.data_port());
    const Response first = c.request("POST", "/echo", {}, tokens);
    CHECK(first.status == 200);
    CHECK(first.body == tokens);
    CHECK(c.request("POST", "/echo", {}, tokens).status == 429);
    CHECK(up.served() == 1);
  }
}

TEST_CASE("--upstream-strip-headers keeps the headers stampede reads from the upstream") {
  UpstreamServer up;
  REQUIRE(up.started());
  FakeProvider p(in_front_of(up, {"--upstream-strip-headers"}));
  REQUIRE(p.started());
  const auto ours = fetch(base(p) + "/echo", {"-H", "X-Api-Key: k", "-H", "X-Attempt: 2", "-H",
                                              "X-Client-Id: c7", "-H", "X-Other: kept"});
  const auto head = ours.head;
  CHECK(head.find("X-Other") != std::string::npos);
  CHECK(head.find("X-Api-Key") == std::string::npos);
  CHECK(head.find("X-Attempt") == std::string::npos);
  CHECK(head.find("X-Client-Id") == std::string::npos);
  // Read all the same: the provider counted the send by its X-Attempt.
  CHECK(p.stats()["send_attribution"]["attributed"].get<std::int64_t>() == 1);
}

TEST_CASE("refused requests are answered by the provider and never reach the upstream") {
  UpstreamServer up;
  REQUIRE(up.started());
  SUBCASE("the allowance") {
    FakeProvider p(in_front_of(up, {"--allowance", "2/min", "--limiter", "fixed-window"}));
    REQUIRE(p.started());
    int ours = 0;
    for (int i = 0; i < 5; ++i) {
      const auto r = http(p.data_port(), "GET", "/bytes/10");
      if (r.status == 429) {
        ++ours;
        CHECK(r.body.find("request_rate_exceeded") != std::string::npos);
      }
    }
    CHECK(ours == 3);
    CHECK(up.served() == 2);
  }
  SUBCASE("an outage and injected errors") {
    FakeProvider p(in_front_of(up, {"--outage", "0s-1h:503"}));
    REQUIRE(p.started());
    CHECK(http(p.data_port(), "GET", "/bytes/10").status == 503);
    CHECK(up.served() == 0);
    FakeProvider q(in_front_of(up, {"--error-rate", "1"}));
    REQUIRE(q.started());
    CHECK(http(q.data_port(), "GET", "/bytes/10").status == 400);
    CHECK(up.served() == 0);
  }
}

TEST_CASE(
    "the upstream's 429 and 503 pass through unchanged and are counted apart, by one "
    "process or by the one deciding for --processes workers") {
  UpstreamServer up;
  REQUIRE(up.started());
  for (const std::string processes : {"1", "2"}) {
    CAPTURE(processes);
    RecordingProvider p(in_front_of(up, {"--processes", processes}));
    REQUIRE(p.started());
    const auto theirs = http(p.data_port(), "GET", "/status/429");
    CHECK(theirs.status == 429);
    CHECK(theirs.header("retry-after") == "7");
    CHECK(theirs.body == "{\"upstream\":\"refused\"}");
    CHECK(http(p.data_port(), "GET", "/status/503").status == 503);
    CHECK(http(p.data_port(), "GET", "/bytes/3").status == 200);
    const json stats = p.stats();
    CHECK(stats["totals"]["ok"] == 3);  // the provider admitted all three
    CHECK(stats["totals"]["429"] == 0);
    CHECK(stats["upstream"]["upstream_429"] == 1);
    CHECK(stats["upstream"]["upstream_5xx"] == 1);
    CHECK(stats["upstream"]["upstream_error"] == 0);
    const json results = json::parse(http(p.admin_port(), "GET", "/admin/results").body);
    CHECK(results["provider_results"]["upstream"] == stats["upstream"]);
    const auto metrics = http(p.admin_port(), "GET", "/metrics").body;
    CHECK(metrics.find("fakeprovider_upstream_answers_total{kind=\"upstream_429\"} 1") !=
          std::string::npos);
    REQUIRE(p.stop() == 0);
    const auto rows = parse_csv(read_file(p.arrivals_path()));
    REQUIRE(rows.size() == 4);
    CHECK(rows[0][7] == "upstream");
    CHECK(rows[1][2] == "200");  // the provider's own decision
    CHECK(rows[1][7] == "429");
    CHECK(rows[2][7] == "503");
    CHECK(rows[3][7] == "200");
  }
}

TEST_CASE("an event stream is passed on event by event, as the upstream sends it") {
  UpstreamServer up;
  REQUIRE(up.started());
  FakeProvider p(in_front_of(up));
  REQUIRE(p.started());
  Connection c(p.data_port());
  c.send_raw("GET /sse?n=4 HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n");
  // The upstream sends event k+1 only once released: each event must reach the client before
  // the next is released, or a proxy that held the stream would never show it.
  for (int k = 1; k <= 4; ++k) {
    CAPTURE(k);
    REQUIRE(c.wait_for("data: event " + std::to_string(k) + "\n\n", kSafetyTimeoutMs / 6));
    CHECK(c.received().find("data: event " + std::to_string(k + 1)) == std::string::npos);
    if (k < 4) up.release();
  }
  CHECK(c.received().find("Content-Type: text/event-stream") != std::string::npos);
  CHECK(c.wait_for("\r\n0\r\n\r\n", kSafetyTimeoutMs / 6));  // the stream's end, chunked
}

TEST_CASE("an upstream that is down is 502, and the next request is served once it is back") {
  auto held = std::make_unique<RefusedPort>();
  const int port = held->port();
  REQUIRE(port > 0);
  RecordingProvider p({"--upstream", "http://127.0.0.1:" + std::to_string(port)});
  REQUIRE(p.started());
  const auto down = http(p.data_port(), "GET", "/bytes/8");
  CHECK(down.status == 502);
  const json body = json::parse(down.body);
  CHECK(body["error"]["type"] == "upstream_error");
  CHECK(body["error"]["reason"] == "refused");
  CHECK(upstream_count(p, "upstream_error") == 1);
  held.reset();
  UpstreamServer up(port);
  REQUIRE(up.started());
  CHECK(http(p.data_port(), "GET", "/bytes/8").body == http(port, "GET", "/bytes/8").body);
  CHECK(upstream_count(p, "upstream_error") == 1);
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][7] == "error");
  CHECK(rows[2][7] == "200");
}

TEST_CASE("an upstream that closes a kept-alive connection: the next request still goes through") {
  UpstreamServer up;
  REQUIRE(up.started());
  FakeProvider p(in_front_of(up, {"--threads", "1", "--upstream-connections", "1"}));
  REQUIRE(p.started());
  Connection c(p.data_port());
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    // Sent once the upstream's close is in: a request that crosses the close on the wire may
    // have been read, and is not sent again (proxy_bounds_test.cpp).
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto r = c.request("GET", "/close-after");
    CHECK(r.status == 200);
    CHECK(r.body == "bye");
  }
  CHECK(upstream_count(p, "upstream_error") == 0);
}

TEST_CASE("an upstream that stalls is 504 after --upstream-timeout, and serving goes on") {
  UpstreamServer up;
  REQUIRE(up.started());
  RecordingProvider p(in_front_of(up, {"--upstream-timeout", "1s"}));
  REQUIRE(p.started());
  Connection c(p.data_port());
  const auto stalled = c.request("GET", "/stall");
  CHECK(stalled.status == 504);
  CHECK(json::parse(stalled.body)["error"]["reason"] == "timed_out");
  // The same connection, kept alive: the next answer is the upstream's.
  CHECK(c.request("GET", "/bytes/16").status == 200);
  CHECK(upstream_count(p, "upstream_error") == 1);
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][7] == "timeout");
}

TEST_CASE("a body longer than --max-body is 413 and never reaches the upstream") {
  UpstreamServer up;
  REQUIRE(up.started());
  FakeProvider p(in_front_of(up, {"--max-body", "1KiB"}));
  REQUIRE(p.started());
  const std::string long_body(2000, 'x'), short_body(1000, 'y');
  const auto declared = http(p.data_port(), "POST", "/echo", {}, long_body);
  CHECK(declared.status == 413);
  CHECK(json::parse(declared.body)["error"]["reason"] == "body_too_long");
  TempDir dir;
  write_file(dir.file("long"), long_body);
  const auto chunked = fetch(base(p) + "/echo", {"-H", "Transfer-Encoding: chunked",
                                                 "--data-binary", "@" + dir.file("long")});
  CHECK(status_of(chunked.head) == 413);
  CHECK(up.served() == 0);
  write_file(dir.file("short"), short_body);
  const auto fits = fetch(base(p) + "/echo", {"-H", "Transfer-Encoding: chunked", "--data-binary",
                                              "@" + dir.file("short")});
  CHECK(status_of(fits.head) == 200);
  CHECK(fits.body == short_body);
  CHECK(up.served() == 1);
}

TEST_CASE("proxy flags are checked before anything is served") {
  const auto fails = [](const std::vector<std::string>& args, const std::string& says) {
    const auto r = run_provider_to_exit(args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(says) != std::string::npos);
  };
  fails({"--upstream", "ftp://127.0.0.1:9"}, "only http and https");
  fails({"--upstream", "http://127.0.0.1:9?x=1"}, "query");
  fails({"--upstream-cacert", "/etc/hostname"}, "give --upstream URL too");
  fails({"--upstream", "http://127.0.0.1:9", "--upstream-insecure"}, "https upstream");
  fails({"--upstream", "http://127.0.0.1:9", "--upstream-timeout", "1500ms"}, "whole number");
  fails({"--upstream", "http://127.0.0.1:9", "--max-body", "8MB"}, "--max-body");
  fails({"--upstream", "http://127.0.0.1:9", "--upstream-connections", "0"}, "1-10000");
  fails({"--upstream", "http://127.0.0.1:9", "--mode", "occ"}, "occ");
}
