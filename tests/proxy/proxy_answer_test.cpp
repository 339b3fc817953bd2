// fakeprovider --upstream in front of an upstream that answers what no sound server does
// (support::ScriptedServer: raw sockets, its bytes as written): an answer is passed on only as
// strictly framed, a connection whose answer broke or overran its framing never carries
// another client's request, and every bound on an answer's head is held with a 502 counted as
// upstream_error.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "proxy/proxy_support.hpp"
#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/nginx.hpp"
#include "support/scripted_server.hpp"

using namespace support;

namespace {

std::string ok(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// One data-plane thread and one pooled connection: a connection that is kept is reused by the
// very next request. No case here waits on --upstream-timeout, so it keeps its default: a short
// one would turn a slow connect on a loaded machine into a 504 where a 502 or 200 is checked.
std::vector<std::string> in_front_of(const ScriptedServer& up) {
  return {"--upstream",
          "http://127.0.0.1:" + std::to_string(up.port()),
          "--threads",
          "1",
          "--upstream-connections",
          "1"};
}

std::int64_t upstream_errors(const FakeProvider& p) {
  return p.stats()["upstream"]["upstream_error"].get<std::int64_t>();
}

// The next client's request after a bad answer: its own answer, on a connection of its own.
void check_next_client(FakeProvider& p, ScriptedServer& up) {
  const auto next = http(p.data_port(), "GET", "/next");
  CHECK(next.status == 200);
  CHECK(next.body == "the next client's own");
  const auto seen = up.requests();
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].connection != seen[0].connection);
}

std::string interims(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n";
  return out;
}

// tests/proxy/tls_scripted_upstream.py with the test PKI's server certificate: a request for
// /NAME is answered with the bytes of answers[NAME], any other with "the next client's own".
class TlsScriptedUpstream {
 public:
  TlsScriptedUpstream(const TestPki& pki,
                      const std::vector<std::pair<std::string, std::string>>& answers)
      : process_(find_program("python3"),
                 {source_path("tests/proxy/tls_scripted_upstream.py"), pki.server_cert(),
                  pki.server_key(), write_answers(answers)},
                 dir_, "tls-upstream"),
        port_(printed_port(process_)) {}
  bool started() const { return port_ > 0; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }

 private:
  std::string write_answers(const std::vector<std::pair<std::string, std::string>>& answers) {
    for (const auto& [name, bytes] : answers) dir_.write(name, bytes);
    return dir_.path();
  }

  TempDir dir_;
  Process process_;
  int port_ = 0;
};

}  // namespace

TEST_CASE("an answer that overran or contradicted its framing never reaches the next client") {
  struct Row {
    std::string name;
    std::string answer;
  };
  const Row rows[] = {
      // Client A's answer is 5 bytes; the 22 after it are an answer for someone else, waiting
      // on the connection for whoever is sent on it next.
      {"a body longer than its Content-Length", ok("hello") + ok("private answer for bob")},
      // Read chunked (RFC 9112 6.3); a reader that took the length would be elsewhere.
      {"chunked beside a Content-Length",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
       "5\r\nhello\r\n0\r\n\r\n"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    ScriptedServer up({{row.answer}, {ok("the next client's own")}});
    FakeProvider p(in_front_of(up));
    REQUIRE(p.started());
    const auto alice = http(p.data_port(), "GET", "/alice");
    CHECK(alice.status == 200);
    CHECK(alice.body == "hello");
    check_next_client(p, up);
  }
}

TEST_CASE("an answer malformed in its head or framing is 502 and its connection is closed") {
  struct Row {
    std::string name;
    std::string answer;
  };
  const std::string chunked_hello = "5\r\nhello\r\n0\r\n\r\n";
  const Row rows[] = {
      {"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n"},
      {"HTTP/1.2", "HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\nok"},
      {"HTTP/2.0", "HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok"},
      {"a four-digit status", "HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok"},
      {"a status below 100", "HTTP/1.1 099 OK\r\nContent-Length: 2\r\n\r\nok"},
      {"a status above 599", "HTTP/1.1 600 OK\r\nContent-Length: 2\r\n\r\nok"},
      {"whitespace before a colon", "HTTP/1.1 200 OK\r\nX-Note : a\r\nContent-Length: 2\r\n\r\nok"},
      {"obs-fold", "HTTP/1.1 200 OK\r\nX-Note: a\r\n b\r\nContent-Length: 2\r\n\r\nok"},
      {"a bare CR in a value",
       "HTTP/1.1 200 OK\r\nX-Note: a\rTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\nok"},
      {"a line ended by a bare LF", "HTTP/1.1 200 OK\r\nX-Note: a\nContent-Length: 2\r\n\r\nok"},
      {"a NUL in a value",
       std::string("HTTP/1.1 200 OK\r\nX-Note: a\0b\r\n", 31) + "Content-Length: 2\r\n\r\nok"},
      {"a line without a colon", "HTTP/1.1 200 OK\r\nX-Note\r\nContent-Length: 2\r\n\r\nok"},
      {"two Content-Lengths",
       "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok"},
      {"a Content-Length not a number", "HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok"},
      {"Transfer-Encoding chunked, then identity",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n"
       "Content-Length: 5\r\n\r\n" +
           chunked_hello},
      {"chunked twice",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" +
           chunked_hello},
      {"a coding before chunked",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + chunked_hello},
      {"a bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"},
      {"a chunk longer than its size",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n"},
      {"101 Switching Protocols",
       "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
       "tunnelled bytes"},
      {"11 interim answers", interims(11) + ok("late")},
      {"interim answers without end", interims(50)},
      {"a head of 20 KiB", "HTTP/1.1 200 OK\r\nX-Big: " + std::string(20 * 1024, 'b') + "\r\n" +
                               "Content-Length: 2\r\n\r\nok"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    ScriptedServer up({{row.answer}, {ok("the next client's own")}});
    FakeProvider p(in_front_of(up));
    REQUIRE(p.started());
    const auto first = http(p.data_port(), "GET", "/first");
    CHECK(first.status == 502);
    CHECK(first.body.find("\"upstream_error\"") != std::string::npos);
    CHECK(upstream_errors(p) == 1);
    check_next_client(p, up);
  }
}

TEST_CASE("an answer's head that does not fit beside its request's is 502, never a silent close") {
  // Under the bound, but the request's own head of 9 KB leaves the answer's less room: the
  // connection's memory holds both.
  const std::string start = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: ";
  ScriptedServer up(
      {{start + std::string(7 * 1024, 'v') + "\r\n\r\nok"}, {ok("the next client's own")}});
  FakeProvider p(in_front_of(up));
  REQUIRE(p.started());
  const auto first = http(p.data_port(), "GET", "/first", {{"X-Client", std::string(9000, 'c')}});
  CHECK(first.status == 502);
  CHECK(first.body.find("\"upstream_error\"") != std::string::npos);
  CHECK(upstream_errors(p) == 1);
  check_next_client(p, up);
}

TEST_CASE("sound answers at the edges pass as they came") {
  SUBCASE("ten interim answers, then the answer") {
    ScriptedServer up({{interims(10) + ok("after ten")}});
    FakeProvider p(in_front_of(up));
    REQUIRE(p.started());
    const auto r = http(p.data_port(), "GET", "/");
    CHECK(r.status == 200);
    CHECK(r.body == "after ten");
    CHECK(upstream_errors(p) == 0);
  }
  SUBCASE("a head of the stated size, its longest header whole") {
    // kMaxHeadBytes (docs/PROXY.md): the status line, the fields and the blank line.
    const std::string start = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: ";
    const std::string value(8 * 1024 - start.size() - 4, 'v');
    ScriptedServer up({{start + value + "\r\n\r\nok"}});
    FakeProvider p(in_front_of(up));
    REQUIRE(p.started());
    Connection c(p.data_port());
    // The client's own head as large as the provider takes one: the answer's head fits beside it.
    const auto r = c.request("GET", "/", {{"X-Client", std::string(6000, 'c')}});
    CHECK(r.status == 200);
    CHECK(r.header("x-big") == value);
    CHECK(r.body == "ok");
    CHECK(upstream_errors(p) == 0);
  }
  SUBCASE("a 304's Content-Length passes unchanged, with no body") {
    ScriptedServer up({{"HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nContent-Length: 10\r\n\r\n"},
                       {ok("then this")}});
    FakeProvider p(in_front_of(up));
    REQUIRE(p.started());
    Connection c(p.data_port());
    c.send_raw("GET / HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v1\"\r\n\r\n");
    REQUIRE(c.wait_for("\r\n\r\n", kSafetyTimeoutMs / 6));
    const std::string head = c.received();
    CHECK(head.find("HTTP/1.1 304") == 0);
    CHECK(head.find("Content-Length: 10\r\n") != std::string::npos);
    // No body came: the connection's next answer follows the 304's head at once.
    c.send_raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    REQUIRE(c.wait_for("then this", kSafetyTimeoutMs / 6));
    CHECK(c.received().find("HTTP/1.1 200") == head.size());
  }
  SUBCASE("a redirect is passed on, never followed") {
    ScriptedServer up(
        {{"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"}});
    FakeProvider p(in_front_of(up));
    REQUIRE(p.started());
    const auto r = http(p.data_port(), "GET", "/moved");
    CHECK(r.status == 302);
    CHECK(r.header("location") == "/elsewhere");
    CHECK(up.requests().size() == 1);
  }
  SUBCASE("a repeated Content-Length of one value") {
    ScriptedServer up({{"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok"}});
    FakeProvider p(in_front_of(up));
    REQUIRE(p.started());
    CHECK(http(p.data_port(), "GET", "/").body == "ok");
  }
}

TEST_CASE("an https upstream's answers are held to the same bounds: 502, never a silent close") {
  TempDir dir;
  const TestPki pki(dir.file(""));
  INFO(pki.error());
  REQUIRE(pki.ok());
  const std::string start = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: ";
  TlsScriptedUpstream up(
      pki, {{"switch",
             "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
             "Connection: Upgrade\r\n\r\ntunnelled bytes"},
            {"interims", interims(11) + ok("late")},
            {"long-head", start + std::string(20 * 1024, 'b') + "\r\n\r\nok"},
            {"beside-a-long-request", start + std::string(7 * 1024, 'v') + "\r\n\r\nok"}});
  REQUIRE(up.started());
  // --upstream-timeout at its default, as in_front_of says.
  FakeProvider p({"--upstream", up.url(), "--upstream-cacert", pki.ca_cert(), "--threads", "1",
                  "--upstream-connections", "1"});
  REQUIRE(p.started());
  std::int64_t errors = 0;
  for (const std::string name : {"switch", "interims", "long-head", "beside-a-long-request"}) {
    CAPTURE(name);
    const auto first =
        http(p.data_port(), "GET", "/" + name, {{"X-Client", std::string(9000, 'c')}});
    CHECK(first.status == 502);
    CHECK(first.body.find("\"upstream_error\"") != std::string::npos);
    CHECK(upstream_errors(p) == ++errors);
    const auto next = http(p.data_port(), "GET", "/next");
    CHECK(next.status == 200);
    CHECK(next.body == "the next client's own");
  }
}
