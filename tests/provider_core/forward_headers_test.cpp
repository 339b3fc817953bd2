#include <doctest/doctest.h>

#include "upstream/forward_headers.hpp"
#include "upstream/upstream_flags.hpp"

using namespace stampede;

TEST_CASE("the headers an upstream gets: hop-by-hop ones gone, this hop added") {
  const std::vector<HeaderField> fields = {
      {"Host", "provider:8080"},
      {"X-Api-Key", "k1"},
      {"Connection", "keep-alive, X-Secret-Hop"},
      {"X-Secret-Hop", "1"},
      {"Keep-Alive", "timeout=5"},
      {"TE", "trailers"},
      {"Transfer-Encoding", "chunked"},
      {"Upgrade", "h2c"},
      {"Proxy-Connection", "keep-alive"},
      {"Content-Length", "12"},
      {"Expect", "100-continue"},
      {"x-forwarded-proto", "https"},
      {"X-Forwarded-For", "10.0.0.1"},
      {"X-Forwarded-For", "10.0.0.2"},
      {"Via", "1.0 edge"},
      {"Accept", "text/event-stream"},
      {"X-Attempt", "3"},
      {"Authorization", "Bearer t"},
  };
  CHECK(upstream_request_headers(fields, {}, {"127.0.0.9", "http"}) ==
        std::vector<std::string>{"X-Api-Key: k1", "Accept: text/event-stream", "X-Attempt: 3",
                                 "Authorization: Bearer t",
                                 "X-Forwarded-For: 10.0.0.1, 10.0.0.2, 127.0.0.9",
                                 "X-Forwarded-Proto: http", "Via: 1.0 edge, 1.1 stampede"});
  // Stripped names go whatever their case; the rest keep their order.
  CHECK(upstream_request_headers({{"x-api-key", "k"}, {"B", "2"}, {"x-attempt", "1"}},
                                 {"X-Api-Key", "X-Attempt"}, {"::1", "http"}) ==
        std::vector<std::string>{"B: 2", "X-Forwarded-For: ::1", "X-Forwarded-Proto: http",
                                 "Via: 1.1 stampede"});
}

TEST_CASE("the dashboards' cookies never reach the upstream; the client's other cookies do") {
  CHECK(upstream_request_headers({{"Cookie", "stampede_dashboard_8081=v; session=s"},
                                  {"cookie", "stampede_dashboard_9000=w"},
                                  {"X-A", "1"}},
                                 {}, {"::1", "http"}) ==
        std::vector<std::string>{"Cookie: session=s", "X-A: 1", "X-Forwarded-For: ::1",
                                 "X-Forwarded-Proto: http", "Via: 1.1 stampede"});
}

TEST_CASE("the upstream's answer headers the client gets") {
  const auto named = connection_field_names(" close ,X-Drop,, keep-alive");
  CHECK(named == std::vector<std::string>{"close", "x-drop", "keep-alive"});
  for (const char* gone : {"Connection", "Keep-Alive", "Transfer-Encoding", "Upgrade", "TE",
                           "Proxy-Connection", "content-length", "X-DROP"})
    CHECK_FALSE(passes_back(gone, named));
  for (const char* kept : {"Retry-After", "Content-Type", "Date", "Server", "Set-Cookie",
                           "anthropic-ratelimit-requests-remaining"})
    CHECK(passes_back(kept, named));
}

TEST_CASE("the target below the prefix: origin-form as it came") {
  CHECK(origin_form("/v1/messages?beta=true") == "/v1/messages?beta=true");
  CHECK(origin_form("/a%2Fb/../c") == "/a%2Fb/../c");
  CHECK(origin_form("http://provider:8080/v1/x?y=1") == "/v1/x?y=1");
  CHECK(origin_form("http://provider:8080?y=1") == "/?y=1");
  CHECK(origin_form("http://provider:8080") == "/");
  CHECK(origin_form("*") == "/");
}

TEST_CASE("proxy flags: every mistake named by its flag") {
  const std::vector<std::string> read = {"X-Api-Key", "X-Attempt", "", "X-Client-Id"};
  UpstreamFlags f;
  const auto none = upstream_config_from(f, read);
  REQUIRE(none.command);
  CHECK(!*none.command);  // no upstream: no proxy
  f.strip_headers = true;
  const auto error_of = [&](const UpstreamFlags& g) {
    const auto checked = upstream_config_from(g, read);
    REQUIRE(checked.errors.size() == 1);
    return checked.errors.front();
  };
  CHECK(error_of(f).find("give --upstream") != std::string::npos);
  f.url = "https://127.0.0.1:8443/v1";
  const auto config = upstream_config_from(f, read).command;
  REQUIRE(config);
  REQUIRE(*config);
  CHECK((*config)->url.prefix == "/v1");
  CHECK((*config)->timeout_ns == 30'000'000'000);
  CHECK((*config)->connections == 64);
  CHECK((*config)->max_body == (8u << 20));
  CHECK((*config)->strip_headers ==
        std::vector<std::string>{"X-Api-Key", "X-Attempt", "X-Client-Id"});
  // Authorization is the upstream's credential: never stripped, even as the tenant header.
  CHECK((*upstream_config_from(f, {"Authorization", "X-Attempt"}).command)->strip_headers ==
        std::vector<std::string>{"X-Attempt"});
  UpstreamFlags g = f;
  g.timeout = "0s";
  CHECK(error_of(g).find("--upstream-timeout") == 0);
  g = f;
  g.connections = 10001;
  CHECK(error_of(g).find("--upstream-connections") == 0);
  g = f;
  g.cacert = "/no/such/ca.pem";
  CHECK(error_of(g).find("--upstream-cacert: cannot read") == 0);
  g = f;
  g.url = "http://h";
  g.insecure = true;
  CHECK(error_of(g).find("https upstream") != std::string::npos);
}

TEST_CASE("byte counts: binary units or none") {
  CHECK(*parse_byte_count("0") == 0);
  CHECK(*parse_byte_count("1048576") == 1048576);
  CHECK(*parse_byte_count("512KiB") == 512 * 1024);
  CHECK(*parse_byte_count("8MiB") == 8u << 20);
  CHECK(*parse_byte_count("4GiB") == std::size_t{4} << 30);
  for (const char* bad : {"", "MiB", "8MB", "8 MiB", "-1", "5GiB", "8mib", "1.5MiB"}) {
    CAPTURE(bad);
    CHECK(!parse_byte_count(bad));
  }
}
