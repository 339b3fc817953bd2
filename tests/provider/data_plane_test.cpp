#include <doctest/doctest.h>

#include <signal.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "duration.hpp"
#include "model/provider_policy.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"

using namespace stampede;
using namespace support;

namespace {

std::int64_t ceil_seconds(std::int64_t ns) {
  return (ns + kNsPerSec - 1) / kNsPerSec;
}

// Replays the arrival log through the model, in the order the server decided, and checks that
// every answer a client saw is the model's answer at its recorded decision time: status,
// Retry-After and the RateLimit headers. answers: by X-Client-Id.
void check_answers_match_model(const Fields& fields, const RecordingProvider& p,
                               const std::map<std::string, Response>& answers) {
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == answers.size() + 1);
  CHECK(rows[0] == std::vector<std::string>{"t_ns", "tenant", "status", "attempt", "client_id",
                                            "send_rule", "decided_t_ns", "upstream", "stream"});
  ProviderPolicy model(provider_config(fields));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    REQUIRE(row.size() == 9);
    CAPTURE(i);
    CAPTURE(row[6]);
    const Decision d = model.admit(std::stoll(row[6]), row[1]);
    CHECK(std::stoi(row[2]) == d.status);
    const auto it = answers.find(row[4]);
    REQUIRE(it != answers.end());
    const Response& r = it->second;
    CHECK(r.status == d.status);
    if (d.retry_after_ns) {
      CHECK(r.header_int("retry-after") == retry_after_seconds(*d.retry_after_ns));
    } else {
      CHECK_FALSE(r.has("retry-after"));
    }
    if (d.has_quota && d.reason != DecisionReason::kCapacity) {
      CHECK(r.header_int("ratelimit-limit") == d.limit);
      CHECK(r.header_int("ratelimit-remaining") == d.remaining);
      CHECK(r.header_int("ratelimit-reset") == ceil_seconds(d.reset_ns));
    }
  }
}

}  // namespace

TEST_CASE("the first two lines name the ports, and both answer") {
  RecordingProvider p({});
  REQUIRE(p.started());
  CHECK(p.first_lines()[0] == "listening on http://127.0.0.1:" + std::to_string(p.data_port()));
  CHECK(p.first_lines()[1] == "admin on http://127.0.0.1:" + std::to_string(p.admin_port()));
  const auto r = http(p.data_port(), "GET", "/any/path?x=1");
  CHECK(r.status == 200);
  CHECK(r.header("content-type") == "application/json");
  CHECK(nlohmann::json::parse(r.body).at("type") == "message");
  CHECK(http(p.data_port(), "DELETE", "/").status == 200);
  CHECK(http(p.admin_port(), "GET", "/healthz").status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("exactly N are admitted per window, the next gets 429 and the right Retry-After") {
  for (const char* limiter : {"fixed-window", "sliding-window", "token-bucket"}) {
    CAPTURE(std::string(limiter));
    Fields fields{{"provider.allowance", "5/min"}, {"provider.limiter", limiter}};
    // A token bucket's default burst is one second of allowance; here it is the window's.
    if (std::string(limiter) == "token-bucket") fields.push_back({"provider.burst", "5"});
    const auto args = provider_args(fields);
    RecordingProvider p(args);
    REQUIRE(p.started());
    Connection c(p.data_port());
    std::map<std::string, Response> answers;
    for (int i = 0; i < 8; ++i) {
      const auto id = std::to_string(i);
      const auto r = c.request("GET", "/v1/messages", {{"X-Client-Id", id}});
      answers[id] = r;
      if (i < 5) {
        CHECK(r.status == 200);
        CHECK(r.header_int("ratelimit-remaining") == 4 - i);
      } else {
        CHECK(r.status == 429);
        CHECK(r.header_int("ratelimit-remaining") == 0);
        CHECK(r.header_int("retry-after") >= 1);
        CHECK(r.header_int("retry-after") <= 60);
        const auto body = nlohmann::json::parse(r.body);
        CHECK(body.at("type") == "error");
        CHECK(body.at("error").at("type") == "rate_limit_error");
        CHECK(body.at("error").at("message").is_string());
      }
    }
    REQUIRE(p.stop() == 0);
    check_answers_match_model(fields, p, answers);
  }
}

TEST_CASE("outage windows are honoured in scenario time under --time-scale") {
  // 400 scenario seconds in 2 wall seconds. Whatever the machine's pace, each answer is
  // checked against the model at its own recorded arrival time, so nothing here can flake on
  // timing; the loop only goes on until it has seen the second outage end. The clock starts
  // at the reset, just before the first request: a start slower than the first outage's wall
  // second (TSan on a loaded 2-core machine) would otherwise leave it unseen.
  const Fields fields{{"provider.outages", "0s-200s:529"},
                      {"provider.outages", "300s-400s:503"},
                      {"provider.allowance", "100000/s"}};
  auto args = provider_args(fields);
  args.insert(args.end(), {"--time-scale", "0.005"});
  RecordingProvider p(args);
  REQUIRE(p.started());
  Connection c(p.data_port());
  REQUIRE(http(p.admin_port(), "POST", "/admin/reset").status == 200);
  std::map<std::string, Response> answers;
  std::map<int, int> seen;
  bool recovered = false;
  for (int i = 0; i < 20000 && !recovered; ++i) {
    const auto id = std::to_string(i);
    const auto r = c.request("POST", "/v1/messages",
                             {{"X-Client-Id", id}, {"X-Attempt", std::to_string(i + 1)}}, "{}");
    answers[id] = r;
    ++seen[r.status];
    recovered = r.status == 200 && seen[503] > 0;
    if (r.status == 529 || r.status == 503) {
      const auto body = nlohmann::json::parse(r.body);
      CHECK(body.at("error").at("type") == (r.status == 529 ? "overloaded_error" : "api_error"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // pacing, not synchronisation
  }
  CHECK(recovered);
  CHECK(seen[529] > 0);
  CHECK(seen[503] > 0);
  REQUIRE(p.stop() == 0);
  check_answers_match_model(fields, p, answers);
}

TEST_CASE("an outage with action reset drops the connection and counts a connect error") {
  RecordingProvider p({"--outage", "0s-1h:reset"});
  REQUIRE(p.started());
  const auto r = http(p.data_port(), "GET", "/", {{"X-Client-Id", "r1"}});
  CHECK(r.status == 0);
  const auto stats = p.stats();
  CHECK(stats.at("totals").at("connect_error") == 1);
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][2] == "0");
  CHECK(rows[1][4] == "r1");
}

TEST_CASE("by default an hourly allowance is enforced a second at a time, not an hour at once") {
  // 60/h is one a minute: the per-second default holds one second's worth (1, at least) and
  // says when the next is due; a named fixed window admits the whole hour's 60 at once.
  RecordingProvider p({"--allowance", "60/h"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const auto first = c.request("GET", "/v1/messages");
  CHECK(first.status == 200);
  CHECK(first.header_int("ratelimit-limit") == 1);
  for (int i = 0; i < 3; ++i) {
    const auto r = c.request("GET", "/v1/messages");
    CHECK(r.status == 429);
    CHECK(r.header_int("retry-after") == 60);
  }
  CHECK(p.stats().at("totals").at("ok") == 1);
  CHECK(p.stop() == 0);

  RecordingProvider fixed({"--allowance", "60/h", "--limiter", "fixed-window"});
  REQUIRE(fixed.started());
  Connection f(fixed.data_port());
  for (int i = 0; i < 4; ++i) CHECK(f.request("GET", "/v1/messages").status == 200);
  CHECK(fixed.stop() == 0);
}

TEST_CASE("each tenant has its own allowance") {
  const Fields fields{{"provider.allowance", "2/min"},
                      {"provider.limiter", "fixed-window"},
                      {"provider.tenant_header", "X-Tenant"}};
  RecordingProvider p(provider_args(fields));
  REQUIRE(p.started());
  std::map<std::string, Response> answers;
  int n = 0;
  for (const char* tenant : {"alpha", "beta", ""}) {
    CAPTURE(std::string(tenant));
    Connection c(p.data_port());
    for (int i = 0; i < 3; ++i) {
      Headers h{{"X-Client-Id", std::to_string(n++)}};
      if (*tenant) h.push_back({"X-Tenant", tenant});
      const auto r = c.request("GET", "/", h);
      answers[h[0].second] = r;
      CHECK(r.status == (i < 2 ? 200 : 429));
    }
  }
  // X-Api-Key names no tenant here: this is the headerless tenant's fourth request.
  answers["g"] = http(p.data_port(), "GET", "/", {{"X-Api-Key", "alpha"}, {"X-Client-Id", "g"}});
  CHECK(answers["g"].status == 429);
  const auto stats = p.stats();
  CHECK(stats.at("tenants").size() == 3);
  for (const char* tenant : {"alpha", "beta", ""}) {
    CAPTURE(std::string(tenant));
    CHECK(stats.at("tenants").at(tenant).at("totals").at("ok") == 2);
    CHECK(stats.at("tenants").at(tenant).at("totals").at("429") == (*tenant ? 1 : 2));
  }
  CHECK(stats.at("tenants").at("").at("requests") == 3 + 1);
  REQUIRE(p.stop() == 0);
  check_answers_match_model(fields, p, answers);
}

TEST_CASE("an arrival is never stamped before it was sent, whatever came before it") {
  // Causality, no clock thresholds: each request goes out after the test has read the
  // provider's clock, so its stamp cannot be earlier. A body that trickles in after the
  // headers, or bytes the server read long before, must not lend their time to the next one.
  for (const char* mode : {"kernel", "watch", "read"}) {
    CAPTURE(std::string(mode));
    RecordingProvider p({"--arrival-stamp", mode});
    REQUIRE(p.started());
    Connection c(p.data_port());
    c.send_raw("POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nX-Client-Id: body\r\n\r\n");
    for (int i = 0; i < 10000 && p.stats().at("requests") != 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    c.send_raw("hello");
    CHECK(c.read_response().status == 200);
    std::map<std::string, std::int64_t> sent_after;
    for (int i = 0; i < 5; ++i) {
      const auto id = "next" + std::to_string(i);
      sent_after[id] = p.stats().at("clock_ns").get<std::int64_t>();
      CHECK(c.request("GET", "/", {{"X-Client-Id", id}}).status == 200);
    }
    REQUIRE(p.stop() == 0);
    const auto rows = parse_csv(read_file(p.arrivals_path()));
    REQUIRE(rows.size() == 7);
    for (std::size_t i = 2; i < rows.size(); ++i) {
      CAPTURE(rows[i][4]);
      CHECK(std::stoll(rows[i][0]) >= sent_after.at(rows[i][4]));
    }
  }
}

TEST_CASE(
    "kernel stamps: an arrival is its first bytes' time, not when its headers were complete") {
  // Causality again: the first half of the headers goes out, then the test reads the
  // provider's clock, then the second half. Stamped when the request was read (whole), it
  // would be later than that clock; stamped by the kernel at its first bytes, earlier.
  RecordingProvider p({"--arrival-stamp", "kernel"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const auto before = p.stats().at("clock_ns").get<std::int64_t>();
  c.send_raw("GET /v1 HTTP/1.1\r\nHost: x\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto between = p.stats().at("clock_ns").get<std::int64_t>();
  c.send_raw("X-Client-Id: split\r\n\r\n");
  CHECK(c.read_response().status == 200);
  // And the next request on the connection is stamped at its own bytes, not the first's.
  const auto next_sent = p.stats().at("clock_ns").get<std::int64_t>();
  CHECK(c.request("GET", "/", {{"X-Client-Id", "next"}}).status == 200);
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][4] == "split");
  CHECK(std::stoll(rows[1][0]) >= before);
  CHECK(std::stoll(rows[1][0]) < between);
  CHECK(rows[2][4] == "next");
  CHECK(std::stoll(rows[2][0]) >= next_sent);
}

TEST_CASE("requests with bodies keep their connection alive") {
  RecordingProvider p({});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const std::string body(4096, 'x');
  for (int i = 0; i < 3; ++i) {
    const auto r = c.request("POST", "/v1/messages", {{"Content-Type", "application/json"}}, body);
    CHECK(r.status == 200);
    CHECK(r.header("connection") != "close");
  }
  // Chunked upload, discarded the same way.
  c.send_raw(
      "POST /v1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  CHECK(c.read_response().status == 200);
  CHECK(p.stats().at("requests") == 4);
  CHECK(p.stop() == 0);
}

TEST_CASE("a service time delays its answer, and the answer goes without further traffic") {
  // 2 scenario seconds at time scale 0.01: 20 ms of wall time. The timer alone must wake the
  // server; nothing else arrives to do it. The wait can only be longer, never shorter.
  RecordingProvider p({"--latency", "2s", "--time-scale", "0.01"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    CHECK(c.request("GET", "/").status == 200);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(20));
  }
  CHECK(p.stop() == 0);
}

TEST_CASE("service time holds no server thread, and SIGTERM lets requests in flight finish") {
  // Each request takes 40 scenario seconds (2 wall seconds at this scale). With two server
  // threads, a service time that held a thread would stamp the third arrival only after the
  // first answer: 40 s after the first arrival.
  RecordingProvider p({"--latency", "40s", "--time-scale", "0.05"});
  REQUIRE(p.started());
  std::vector<std::unique_ptr<Connection>> conns;
  for (int i = 0; i < 4; ++i) {
    conns.push_back(std::make_unique<Connection>(p.data_port()));
    conns.back()->send_raw("GET / HTTP/1.1\r\nHost: x\r\nX-Client-Id: " + std::to_string(i) +
                           "\r\n\r\n");
  }
  for (int i = 0; i < 10000 && p.stats().at("requests") != 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(p.stats().at("requests") == 4);
  p.signal(SIGTERM);
  for (auto& c : conns) CHECK(c->read_response().status == 200);
  const int rc = p.stop();
  CHECK_MESSAGE(rc == 0, p.err());
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 5);
  std::int64_t first = INT64_MAX, last = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    first = std::min<std::int64_t>(first, std::stoll(rows[i][0]));
    last = std::max<std::int64_t>(last, std::stoll(rows[i][0]));
  }
  CHECK(last - first < 40 * kNsPerSec);
  CHECK(nlohmann::json::parse(read_file(p.stats_path())).at("requests") == 4);
}

TEST_CASE("--hop-delay decides a request one hop after it was sent and answers one hop later") {
  // Causality, no clock thresholds: the test reads the provider's clock before each send and
  // after each answer; the recorded arrival (when the layers and the row decided) must lie a
  // whole hop after the first reading and a whole hop before the second. 1 s hops at time
  // scale 0.01: 10 ms of wall time each. Slack: the clock's double rounding, far below a hop.
  constexpr std::int64_t kHop = kNsPerSec;
  constexpr std::int64_t kRounding = kNsPerMs;
  RecordingProvider p({"--mode", "occ", "--hop-delay", "1s,0s", "--time-scale", "0.01"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  std::map<std::string, std::pair<std::int64_t, std::int64_t>>
      window;  // client -> (sent, answered)
  for (int i = 0; i < 3; ++i) {
    const auto id = "c" + std::to_string(i);
    const auto sent = p.stats().at("clock_ns").get<std::int64_t>();
    const auto r = c.request("GET", "/row", {{"X-Client-Id", id}});
    CHECK(r.status == 200);
    CHECK(r.header("etag") == "\"0\"");
    window[id] = {sent, p.stats().at("clock_ns").get<std::int64_t>()};
  }
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 4);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CAPTURE(rows[i][4]);
    const auto [sent, answered] = window.at(rows[i][4]);
    const std::int64_t decided = std::stoll(rows[i][6]);
    CHECK(decided >= sent + kHop - kRounding);
    CHECK(decided <= answered - kHop + kRounding);
  }
}

TEST_CASE("--hop-delay: SIGTERM lets the answers still on their way back finish") {
  // Hops of 10 scenario seconds, 1 s of wall time each: the requests are decided (counted in
  // the stats) a hop after they were sent, and SIGTERM comes while their answers are held.
  RecordingProvider p({"--mode", "occ", "--hop-delay", "10s,0s", "--time-scale", "0.1"});
  REQUIRE(p.started());
  std::vector<std::unique_ptr<Connection>> conns;
  for (int i = 0; i < 3; ++i) {
    conns.push_back(std::make_unique<Connection>(p.data_port()));
    conns.back()->send_raw("GET /row HTTP/1.1\r\nHost: x\r\n\r\n");
  }
  for (int i = 0; i < 10000 && p.stats().at("requests") != 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(p.stats().at("requests") == 3);
  p.signal(SIGTERM);
  for (auto& c : conns) CHECK(c->read_response().status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("a burst of exactly one epoll batch (128) is answered at once") {
  // An HTTP library's own loop (one fakeprovider used once), handed exactly its 128-event
  // maximum, blocked again before serving them; a loop must serve every event a wait returns
  // even when the wait was full. Stop the server, queue 128 requests on warm
  // connections, let it go: all 128 must be answered without any further traffic.
  RecordingProvider p({"--threads", "1"});
  REQUIRE(p.started());
  std::vector<std::unique_ptr<Connection>> conns;
  for (int i = 0; i < 128; ++i) {
    conns.push_back(std::make_unique<Connection>(p.data_port()));
    REQUIRE(conns.back()->request("GET", "/").status == 200);
  }
  p.signal(SIGSTOP);
  REQUIRE(p.wait_state('T'));
  for (auto& c : conns) c->send_raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  p.signal(SIGCONT);
  for (auto& c : conns) CHECK(c->read_response().status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("malformed requests are answered 4xx or closed, and the server keeps serving") {
  RecordingProvider p({});
  REQUIRE(p.started());
  std::string garbage;
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 4096; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    garbage += static_cast<char>(x & 0xFF);
  }
  const std::vector<std::pair<const char*, std::string>> cases{
      {"bad request line", "GARBAGE\r\n\r\n"},
      {"no version", "GET /\r\n\r\n"},
      {"bad version", "GET / HTTP/9.9\r\nHost: x\r\n\r\n"},
      {"header without colon", "GET / HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n"},
      {"oversized headers",
       "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(200'000, 'a') + "\r\n\r\n"},
      {"binary garbage", garbage + "\r\n\r\n"},
      {"nul bytes", std::string("GET /\0\0 HTTP/1.1\r\n\r\n", 21)},
  };
  for (const auto& [name, bytes] : cases) {
    CAPTURE(std::string(name));
    Connection c(p.data_port());
    REQUIRE(c.ok());
    c.send_raw(bytes);
    c.shutdown_write();
    const auto r = c.read_response();
    CAPTURE(r.status);
    CHECK((r.status == 0 || (r.status >= 400 && r.status < 500) || r.status == 505));
    CHECK(http(p.data_port(), "GET", "/").status == 200);
  }
  CHECK(http(p.admin_port(), "GET", "/healthz").status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("curl --retry 3 against an outage: the arrival log shows its four sends") {
  REQUIRE_MESSAGE(std::system("curl --version >/dev/null 2>&1") == 0,
                  "this test needs the curl CLI (Debian package curl)");
  // No Retry-After, so curl keeps its own schedule: 1 s, 2 s, 4 s.
  RecordingProvider p({"--outage", "0s-1h:503", "--retry-after", "off"});
  REQUIRE(p.started());
  // Not -o /dev/null: curl truncates its output file before a retry, which /dev/null refuses.
  const std::string cmd =
      "curl -s -o " + p.dir().file("body") +
      " --retry 3 -H 'X-Client-Id: curl' http://127.0.0.1:" + std::to_string(p.data_port()) +
      "/v1/messages";
  CHECK(std::system(cmd.c_str()) == 0);
  REQUIRE(p.stop() == 0);
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == 5);
  // curl sends the same headers every time: its X-Client-Id (--client-header) numbers them.
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(rows[i][2] == "503");
    CHECK(rows[i][3] == std::to_string(i));
    CHECK(rows[i][4] == "curl");
    CHECK(rows[i][5] == "client-header");
  }
  // curl sleeps at least its delay between sends (time scale 1: scenario time is wall time).
  for (std::size_t i = 2; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(std::stoll(rows[i][0]) - std::stoll(rows[i - 1][0]) >= (kNsPerSec << (i - 2)));
  }
}

TEST_CASE("occ mode: GET /row gives the version, PUT /row with If-Match bumps it or gets 412") {
  RecordingProvider p({"--mode", "occ"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const auto read = c.request("GET", "/row", {{"X-Client-Id", "a"}});
  CHECK(read.status == 200);
  CHECK(read.header("etag") == "\"0\"");
  CHECK(nlohmann::json::parse(read.body).at("version") == 0);
  const auto write = c.request("PUT", "/row", {{"If-Match", "\"0\""}, {"X-Client-Id", "a"}});
  CHECK(write.status == 200);
  CHECK(write.header("etag") == "\"1\"");
  CHECK(nlohmann::json::parse(write.body).at("version") == 1);
  // A second writer that read version 0 too: the row moved under it.
  const auto stale = c.request("PUT", "/row", {{"If-Match", "\"0\""}, {"X-Client-Id", "b"}});
  CHECK(stale.status == 412);
  CHECK(stale.header("etag") == "\"1\"");
  const auto body = nlohmann::json::parse(stale.body);
  CHECK(body.at("error").at("type") == "precondition_failed");
  CHECK(body.at("version") == 1);
  CHECK(c.request("PUT", "/row").status == 428);
  // Other paths answer as in plain mode.
  const auto other = c.request("GET", "/v1/messages");
  CHECK(other.status == 200);
  CHECK_FALSE(other.has("etag"));
  const auto stats = p.stats();
  CHECK(stats.at("totals").at("ok") == 3);
  CHECK(stats.at("totals").at("4xx") == 2);
  // A reset starts the row over.
  CHECK(http(p.admin_port(), "POST", "/admin/reset").status == 200);
  CHECK(c.request("GET", "/row").header("etag") == "\"0\"");
  CHECK(p.stop() == 0);
}

TEST_CASE("occ mode: the layers come first, so a rate-limited write gets the 429, not the row") {
  RecordingProvider p({"--mode", "occ", "--allowance", "2/min", "--limiter", "fixed-window"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  CHECK(c.request("GET", "/row").status == 200);
  CHECK(c.request("PUT", "/row", {{"If-Match", "\"0\""}}).status == 200);
  const auto limited = c.request("PUT", "/row", {{"If-Match", "\"1\""}});
  CHECK(limited.status == 429);
  CHECK_FALSE(limited.has("etag"));
  CHECK(p.stop() == 0);
}

TEST_CASE("plain mode has no row: /row is any other path") {
  RecordingProvider p({});
  REQUIRE(p.started());
  const auto r = http(p.data_port(), "PUT", "/row", {{"If-Match", "\"9\""}});
  CHECK(r.status == 200);
  CHECK_FALSE(r.has("etag"));
  CHECK(p.stop() == 0);
}
