// The data plane's HTTP/1.1 server, answer by answer: each way a request can be framed gets
// the answer both servers gave when --http-server still chose between two (the other's name
// is refused now, with the fix). Every other provider test runs on it too.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/http_client.hpp"

using namespace support;

namespace {

using Fields = std::map<std::string, std::string>;

struct Answer {
  int status;
  Fields headers;  // all of them but the timed ones
  std::string body;
};

struct Exchange {
  const char* name;
  std::string bytes;            // one or more requests, on one connection
  std::vector<Answer> answers;  // in order
};

// What may differ between two runs of one answer: the second it was sent in, and the times
// counted from it.
Response comparable(Response r) {
  for (const char* timed : {"date", "retry-after", "ratelimit-reset"}) r.headers.erase(timed);
  return r;
}

constexpr const char* kOk = R"({"type":"message","status":"ok"})";

Answer ok(int remaining, const char* connection = nullptr) {
  Fields h{{"content-type", "application/json"},
           {"ratelimit-limit", "8"},
           {"ratelimit-remaining", std::to_string(remaining)},
           {"content-length", "32"}};
  if (connection) h["connection"] = connection;
  return {200, h, kOk};
}

Answer framing_refusal(const std::string& message) {
  const std::string body =
      R"({"type":"error","error":{"type":"invalid_request_error","reason":"request_framing",)"
      R"("message":")" +
      message + R"("}})";
  return {400,
          {{"content-type", "application/json"},
           {"connection", "close"},
           {"content-length", std::to_string(body.size())}},
          body};
}

}  // namespace

TEST_CASE("http server: each framing of a request gets the answer both servers gave it") {
  const std::string host = "Host: x\r\n";
  const std::string too_many =
      R"({"type":"error","error":{"type":"rate_limit_error","reason":"request_rate_exceeded",)"
      R"("message":"Number of requests has exceeded your rate limit; retry after the time in )"
      R"(Retry-After"}})";
  const std::vector<Exchange> exchanges{
      {"a GET", "GET / HTTP/1.1\r\n" + host + "\r\n", {ok(7)}},
      {"a POST with a length",
       "POST /v1/messages HTTP/1.1\r\n" + host +
           "Content-Length: 7\r\nX-Client-Id: c1\r\n\r\n{\"a\":1}",
       {ok(6)}},
      {"a chunked POST",
       "POST /v1 HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
       {ok(5)}},
      {"pipelined",
       "GET /a HTTP/1.1\r\n" + host + "\r\nGET /b HTTP/1.1\r\n" + host + "\r\n",
       {ok(4), ok(3)}},
      {"Connection: close",
       "GET / HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n",
       {ok(2, "close")}},
      {"HTTP/1.0", "GET / HTTP/1.0\r\n\r\n", {ok(1, "close")}},
      {"HTTP/1.0 keep-alive",
       "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
       {ok(0, "Keep-Alive")}},
      {"a framing refusal",
       "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n\r\n",
       {framing_refusal("Transfer-Encoding must end in chunked: the body's end cannot be found")}},
      {"a repeated Content-Length",
       "POST / HTTP/1.1\r\n" + host + "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx",
       {framing_refusal("Content-Length is repeated")}},
      {"past the allowance",
       "GET / HTTP/1.1\r\n" + host + "\r\n",
       {{429,
         {{"content-type", "application/json"},
          {"ratelimit-limit", "8"},
          {"ratelimit-remaining", "0"},
          {"content-length", std::to_string(too_many.size())}},
         too_many}}},
  };
  // The last request is one past the allowance (the framing refusals never reach it): a 429.
  RecordingProvider p({"--allowance", "8/h", "--limiter", "fixed-window"});
  REQUIRE(p.started());
  for (const auto& x : exchanges) {
    CAPTURE(std::string(x.name));
    Connection c(p.data_port());
    REQUIRE(c.ok());
    c.send_raw(x.bytes);
    for (const Answer& want : x.answers) {
      const Response got = comparable(c.read_response());
      CHECK(got.status == want.status);
      CHECK(got.headers == want.headers);
      CHECK(got.body == want.body);
    }
  }
  CHECK(p.stop() == 0);
}

TEST_CASE("http server: an --http-server it does not know is refused, naming what to do") {
  const Exited bad = run_provider_to_exit({"--http-server", "nginx"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--http-server: 'nginx' is not auto or native") != std::string::npos);
  CHECK(bad.err.find("drop --http-server (or give native)") != std::string::npos);
}

TEST_CASE("http server: it reads a Content-Length's digits as its check takes them") {
  RecordingProvider p({});
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
    "http server: a head RFC 9112 refuses is refused, 400 (CONNECT 405), before the provider "
    "counts it, and closed") {
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
  FakeProvider p({});
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
    if (x.status == 405) CHECK(r.header("allow") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
  }
  CHECK(p.stats()["requests"] == 0);
  // And a request that is well read is served.
  CHECK(http(p.data_port(), "GET", "/").status == 200);
}
