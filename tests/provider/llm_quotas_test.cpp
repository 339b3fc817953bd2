// LLM quotas over HTTP: the token allowance, the spend cap, the token header and the header
// dialects, as a client of fakeprovider sees them.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "civil_date.hpp"
#include "support/fake_provider.hpp"
#include "support/http_client.hpp"

using namespace support;

namespace {

std::string quota_reason(const Response& r) {
  return nlohmann::json::parse(r.body).at("error").at("reason").get<std::string>();
}

std::int64_t epoch_s_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "2025-01-02T03:04:05Z" as Unix seconds; -1 when it is not that shape.
std::int64_t parse_rfc3339_utc(const std::string& s) {
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':' || s[19] != 'Z') {
    return -1;
  }
  const auto num = [&](std::size_t at, std::size_t n) { return std::stoll(s.substr(at, n)); };
  return stampede::days_from_civil(num(0, 4), static_cast<unsigned>(num(5, 2)),
                                   static_cast<unsigned>(num(8, 2))) *
             86400 +
         num(11, 2) * 3600 + num(14, 2) * 60 + num(17, 2);
}

Headers tokens(const std::string& n) {
  return {{"X-Tokens", n}};
}

}  // namespace

TEST_CASE("a token allowance answers 429 token_rate_exceeded with a Retry-After") {
  RecordingProvider p({"--token-allowance", "1000/min", "--ratelimit-headers", "none"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  CHECK(c.request("POST", "/v1/messages", tokens("600")).status == 200);
  const auto r = c.request("POST", "/v1/messages", tokens("500"));
  CHECK(r.status == 429);
  CHECK(quota_reason(r) == "token_rate_exceeded");
  CHECK(r.header_int("retry-after") >= 1);
  CHECK(r.header_int("retry-after") <= 60);
  CHECK_FALSE(r.has("x-should-retry"));
  CHECK_FALSE(r.has("ratelimit-limit"));
  CHECK(c.request("POST", "/v1/messages", tokens("400")).status == 200);
  const auto too_large = c.request("POST", "/v1/messages", tokens("1001"));
  CHECK(too_large.status == 429);
  CHECK(quota_reason(too_large) == "request_too_large");
  CHECK(too_large.header("x-should-retry") == "false");
  CHECK_FALSE(too_large.has("retry-after"));
  const auto stats = p.stats();
  CHECK(stats.at("reasons").at("served") == 2);
  CHECK(stats.at("reasons").at("token_rate_exceeded") == 1);
  CHECK(stats.at("reasons").at("request_too_large") == 1);
  CHECK(stats.at("totals").at("429") == 2);
  CHECK(p.stop() == 0);
}

TEST_CASE("a spend cap answers 429 spend_cap_exceeded, x-should-retry: false, no Retry-After") {
  RecordingProvider p(
      {"--spend-cap", "1000", "--allowance", "100/min", "--limiter", "fixed-window"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  CHECK(c.request("POST", "/", tokens("600")).status == 200);
  for (int i = 0; i < 2; ++i) {
    const auto r = c.request("POST", "/", tokens("600"));
    CHECK(r.status == 429);
    CHECK(quota_reason(r) == "spend_cap_exceeded");
    CHECK(r.header("x-should-retry") == "false");
    CHECK_FALSE(r.has("retry-after"));
    // Not a rate: no rate-limit numbers either.
    CHECK_FALSE(r.has("ratelimit-remaining"));
  }
  CHECK(c.request("POST", "/", tokens("400")).status == 200);
  const auto stats = p.stats();
  CHECK(stats.at("reasons").at("spend_cap_exceeded") == 2);
  CHECK(stats.at("tenants").at("").at("reasons").at("spend_cap_exceeded") == 2);
  CHECK(stats.at("reasons").at("request_rate_exceeded") == 0);
  // The admin reset restores the cap.
  REQUIRE(http(p.admin_port(), "POST", "/admin/reset").status == 200);
  CHECK(c.request("POST", "/", tokens("1000")).status == 200);
  CHECK(c.request("POST", "/", tokens("1")).status == 429);
  CHECK(p.stop() == 0);
}

TEST_CASE("a token count that is not a whole number >= 0 is a 400 naming the header") {
  RecordingProvider p({"--token-allowance", "1000/min", "--token-header", "X-Request-Tokens"});
  REQUIRE(p.started());
  for (const char* bad : {"abc", "-5", "1.5", "12k", "99999999999999999999"}) {
    CAPTURE(bad);
    const auto r = http(p.data_port(), "POST", "/", {{"X-Request-Tokens", bad}});
    CHECK(r.status == 400);
    const auto error = nlohmann::json::parse(r.body).at("error");
    CHECK(error.at("type") == "invalid_request_error");
    CHECK(error.at("reason") == "invalid_tokens");
    CHECK(error.at("message").get<std::string>().find("X-Request-Tokens") != std::string::npos);
  }
  // Only the configured header counts; none at all counts the default, 1.
  CHECK(http(p.data_port(), "POST", "/", tokens("abc")).status == 200);
  const auto none = http(p.data_port(), "POST", "/");
  CHECK(none.status == 200);
  CHECK(none.header_int("ratelimit-remaining") == 998);
  CHECK(p.stats().at("reasons").at("invalid_tokens") == 5);
  CHECK(p.stop() == 0);
}

TEST_CASE("without a token quota the token header is not read") {
  RecordingProvider p({"--allowance", "10/min"});
  REQUIRE(p.started());
  CHECK(http(p.data_port(), "POST", "/", tokens("abc")).status == 200);
  CHECK(p.stop() == 0);
}

TEST_CASE("each header dialect carries the request and token quotas") {
  SUBCASE("anthropic: anthropic-ratelimit-{requests,tokens}-*, resets as RFC 3339 times") {
    RecordingProvider p({"--allowance", "3/min", "--limiter", "fixed-window", "--token-allowance",
                         "1000/min", "--ratelimit-headers", "anthropic"});
    REQUIRE(p.started());
    Connection c(p.data_port());
    const std::int64_t before = epoch_s_now();
    const auto ok = c.request("POST", "/", tokens("600"));
    const auto limited = c.request("POST", "/", tokens("500"));
    const std::int64_t after = epoch_s_now();
    CHECK(ok.status == 200);
    CHECK(ok.header_int("anthropic-ratelimit-requests-limit") == 3);
    CHECK(ok.header_int("anthropic-ratelimit-requests-remaining") == 2);
    CHECK(ok.header_int("anthropic-ratelimit-tokens-limit") == 1000);
    CHECK(ok.header_int("anthropic-ratelimit-tokens-remaining") == 400);
    CHECK(limited.status == 429);
    CHECK(limited.header_int("anthropic-ratelimit-requests-remaining") == 1);
    CHECK(limited.header_int("anthropic-ratelimit-tokens-remaining") == 400);
    CHECK(limited.header_int("retry-after") >= 1);
    for (const auto* r : {&ok, &limited}) {
      for (const char* name :
           {"anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-reset"}) {
        CAPTURE(name);
        CAPTURE(r->header(name));
        // A fixed window of a minute from the provider's start: at most 60 s ahead.
        const std::int64_t reset = parse_rfc3339_utc(r->header(name));
        CHECK(reset >= before);
        CHECK(reset <= after + 61);
      }
    }
    CHECK_FALSE(ok.has("ratelimit-limit"));
    CHECK_FALSE(ok.has("x-ratelimit-limit"));
    CHECK(p.stop() == 0);
  }
  SUBCASE("x-ratelimit: the requests as before, the tokens with a -Tokens suffix") {
    RecordingProvider p({"--allowance", "3/min", "--limiter", "fixed-window", "--token-allowance",
                         "1000/min", "--ratelimit-headers", "x-ratelimit"});
    REQUIRE(p.started());
    const auto ok = http(p.data_port(), "POST", "/", tokens("600"));
    CHECK(ok.header_int("x-ratelimit-limit") == 3);
    CHECK(ok.header_int("x-ratelimit-remaining") == 2);
    CHECK(ok.header_int("x-ratelimit-reset") >= 1);
    CHECK(ok.header_int("x-ratelimit-limit-tokens") == 1000);
    CHECK(ok.header_int("x-ratelimit-remaining-tokens") == 400);
    CHECK(ok.header_int("x-ratelimit-reset-tokens") >= 1);
    CHECK(ok.header_int("x-ratelimit-reset-tokens") <= 60);
    CHECK(p.stop() == 0);
  }
  SUBCASE("ietf: one quota, the one closest to running out or the one a 429 is for") {
    RecordingProvider p(
        {"--allowance", "4/min", "--limiter", "fixed-window", "--token-allowance", "1000/min"});
    REQUIRE(p.started());
    Connection c(p.data_port());
    // 3 of 4 requests left against 900 of 1000 tokens: the requests are closer.
    const auto a = c.request("POST", "/", tokens("100"));
    CHECK(a.header_int("ratelimit-limit") == 4);
    CHECK(a.header_int("ratelimit-remaining") == 3);
    // 2 of 4 against 100 of 1000: the tokens.
    const auto b = c.request("POST", "/", tokens("800"));
    CHECK(b.header_int("ratelimit-limit") == 1000);
    CHECK(b.header_int("ratelimit-remaining") == 100);
    // Refused for tokens: the token quota, though 1 request of 4 is left.
    const auto d = c.request("POST", "/", tokens("200"));
    CHECK(d.status == 429);
    CHECK(d.header_int("ratelimit-limit") == 1000);
    CHECK(d.header_int("ratelimit-remaining") == 100);
    CHECK(p.stop() == 0);
  }
}

TEST_CASE("with --token-field the tokens come from the JSON body when the header is absent") {
  RecordingProvider p({"--token-allowance", "1000/min", "--token-field", "max_tokens"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const auto a = c.request("POST", "/v1/messages", {{"Content-Type", "application/json"}},
                           R"({"model":"m","max_tokens":300,"messages":[]})");
  CHECK(a.status == 200);
  CHECK(a.header_int("ratelimit-remaining") == 700);
  // The header wins over the body.
  const auto b = c.request("POST", "/v1/messages", tokens("100"), R"({"max_tokens":900})");
  CHECK(b.header_int("ratelimit-remaining") == 600);
  // No body, or no field: the default, 1.
  CHECK(c.request("GET", "/").header_int("ratelimit-remaining") == 599);
  CHECK(c.request("POST", "/", {}, R"({"model":"m"})").header_int("ratelimit-remaining") == 598);
  const auto bad = c.request("POST", "/", {}, R"({"max_tokens":"lots"})");
  CHECK(bad.status == 400);
  CHECK(quota_reason(bad) == "invalid_tokens");
  CHECK(bad.body.find("X-Tokens (or the JSON body's max_tokens)") != std::string::npos);
  // A body larger than the field's limit is not read.
  std::string big = R"({"max_tokens":1,"pad":")" + std::string(1 << 20, 'x') + R"("})";
  CHECK(c.request("POST", "/", {}, big).status == 400);
  CHECK(c.request("POST", "/", {}, R"({"max_tokens":598})").status == 200);
  CHECK(c.request("POST", "/", {}, R"({"max_tokens":1})").status == 429);
  CHECK(p.stop() == 0);
}
