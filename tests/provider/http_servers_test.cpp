// The native server and libmicrohttpd, side by side: the same requests get the same answers,
// whichever reads them (--http-server). Every other provider test runs on the default, which
// is the native server in the modes it serves.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/http_client.hpp"

using namespace support;

namespace {

struct Exchange {
  const char* name;
  std::string bytes;  // one or more requests, on one connection
  int answers;        // how many answers to read
};

// What may differ between two runs of one answer: the second it was sent in, and the times
// counted from it (the headers' values are the dialect's, which both servers share).
Response comparable(Response r) {
  for (const char* timed : {"date", "retry-after", "ratelimit-reset"}) r.headers.erase(timed);
  return r;
}

}  // namespace

TEST_CASE("http servers: native and libmicrohttpd answer the same requests alike") {
  const std::string host = "Host: x\r\n";
  const std::vector<Exchange> exchanges{
      {"a GET", "GET / HTTP/1.1\r\n" + host + "\r\n", 1},
      {"a POST with a length",
       "POST /v1/messages HTTP/1.1\r\n" + host +
           "Content-Length: 7\r\nX-Client-Id: c1\r\n\r\n{\"a\":1}",
       1},
      {"a chunked POST",
       "POST /v1 HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
       1},
      {"pipelined", "GET /a HTTP/1.1\r\n" + host + "\r\nGET /b HTTP/1.1\r\n" + host + "\r\n", 2},
      {"Connection: close", "GET / HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n", 1},
      {"HTTP/1.0", "GET / HTTP/1.0\r\n\r\n", 1},
      {"HTTP/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 1},
      {"a framing refusal", "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n\r\n", 1},
      {"a repeated Content-Length",
       "POST / HTTP/1.1\r\n" + host + "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx", 1},
      {"past the allowance", "GET / HTTP/1.1\r\n" + host + "\r\n", 1},
  };
  // The last request is one past the allowance (the framing refusals never reach it): a 429.
  const std::vector<std::string> flags{"--allowance", "8/h", "--limiter", "fixed-window"};
  std::vector<std::vector<Response>> answers(2);
  for (const int i : {0, 1}) {
    auto args = flags;
    args.insert(args.end(), {"--http-server", i == 0 ? "native" : "libmicrohttpd"});
    RecordingProvider p(args);
    REQUIRE(p.started());
    for (const auto& x : exchanges) {
      Connection c(p.data_port());
      REQUIRE(c.ok());
      c.send_raw(x.bytes);
      for (int n = 0; n < x.answers; ++n) answers[i].push_back(comparable(c.read_response()));
    }
    CHECK(p.stop() == 0);
  }
  REQUIRE(answers[0].size() == answers[1].size());
  std::size_t k = 0;
  for (const auto& x : exchanges) {
    for (int n = 0; n < x.answers; ++n, ++k) {
      CAPTURE(std::string(x.name));
      CAPTURE(n);
      const Response& native = answers[0][k];
      const Response& mhd = answers[1][k];
      CHECK(native.status != 0);
      CHECK(native.status == mhd.status);
      CHECK(native.headers == mhd.headers);
      CHECK(native.body == mhd.body);
    }
  }
}

TEST_CASE("http servers: an --http-server it does not know is refused") {
  const Exited bad = run_provider_to_exit({"--http-server", "nginx"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("'nginx' is not auto, native or libmicrohttpd") != std::string::npos);
}

TEST_CASE(
    "http servers: the native server reads a Content-Length's digits as its check takes them") {
  RecordingProvider p({"--http-server", "native"});
  REQUIRE(p.started());
  // OWS after the digits (RFC 9110 5.5: not part of the value) frames the body by them.
  Connection blank(p.data_port());
  REQUIRE(blank.ok());
  blank.send_raw("POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 7 \r\n\r\n{\"a\":1}");
  CHECK(blank.read_response().status == 200);
  // More digits than any length: refused before a byte of the body is awaited.
  Connection huge(p.data_port());
  REQUIRE(huge.ok());
  huge.send_raw("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n");
  const Response r = huge.read_response();
  CHECK(r.status == 400);
  CHECK(r.body.find("Content-Length is too large") != std::string::npos);
  CHECK(p.stop() == 0);
}

TEST_CASE(
    "http servers: both refuse a head RFC 9112 refuses, 400 (CONNECT 405), before the provider "
    "counts it, and close") {
  struct Refused {
    const char* name;
    std::string bytes;
    int status;
  };
  const std::string host = "Host: x\r\n";
  const std::vector<Refused> cases{
      {"whitespace before a colon",
       "POST / HTTP/1.1\r\n" + host +
           "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\n"
           "0\r\n\r\n",
       400},
      {"a bare CR in a value",
       "GET / HTTP/1.1\r\n" + host + "X-Note: a\rTransfer-Encoding: chunked\r\n\r\n", 400},
      {"obs-fold", "GET / HTTP/1.1\r\n" + host + "X-Note: a\r\n b\r\n\r\n", 400},
      {"a control byte in the target",
       "GET /a\x01"
       "b HTTP/1.1\r\n" +
           host + "\r\n",
       400},
      {"a NUL in a value", "GET / HTTP/1.1\r\n" + host + std::string("X-Note: a\0b\r\n\r\n", 15),
       400},
      {"an empty field name", "GET / HTTP/1.1\r\n" + host + ": v\r\n\r\n", 400},
      {"two spaces after the method", "GET  / HTTP/1.1\r\n" + host + "\r\n", 400},
      {"a repeated tenant header",
       "GET / HTTP/1.1\r\n" + host + "X-Api-Key: a\r\nX-Api-Key: b\r\n\r\n", 400},
      {"CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 405},
  };
  for (const char* server : {"native", "libmicrohttpd"}) {
    CAPTURE(std::string(server));
    FakeProvider p({"--http-server", server});
    REQUIRE(p.started());
    for (const auto& x : cases) {
      CAPTURE(std::string(x.name));
      Connection c(p.data_port());
      REQUIRE(c.ok());
      c.send_raw(x.bytes);
      const Response r = c.read_response();
      CHECK(r.status == x.status);
      CHECK(r.header("connection") == "close");
      CHECK(r.body.find("\"reason\":\"request_head\"") != std::string::npos);
      CHECK(c.closed_within(15'000));
      if (x.status == 405)
        CHECK(r.header("allow") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    }
    CHECK(p.stats()["requests"] == 0);
    // And a request that is well read is served.
    CHECK(http(p.data_port(), "GET", "/").status == 200);
  }
}
