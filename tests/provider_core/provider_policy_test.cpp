#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "duration.hpp"
#include "model/provider_policy.hpp"

using namespace stampede;

namespace {

ProviderConfig with_allowance(const char* rate) {
  ProviderConfig c;
  c.allowance = *parse_rate(rate);
  return c;
}

}  // namespace

TEST_CASE("Retry-After is in whole seconds, rounded up, at least 1") {
  struct Row {
    std::int64_t ns;
    std::int64_t seconds;
  };
  for (const Row& r : {Row{-5, 1}, Row{0, 1}, Row{1, 1}, Row{999 * kNsPerMs, 1}, Row{kNsPerSec, 1},
                       Row{kNsPerSec + 1, 2}, Row{29'500 * kNsPerMs, 30}, Row{30 * kNsPerSec, 30},
                       Row{3600 * kNsPerSec + 1, 3601},
                       // An outage to the end of int64 time: rounding up must not wrap.
                       Row{std::numeric_limits<std::int64_t>::max(), 9'223'372'036}}) {
    CAPTURE(r.ns);
    CHECK(retry_after_seconds(r.ns) == r.seconds);
  }
}

TEST_CASE("an outage answers with its status and the time left as Retry-After") {
  struct Row {
    const char* outage;
    std::int64_t now_ns;
    int status;
    bool reset;
    Outcome outcome;
    std::optional<std::int64_t> retry_after_ns;  // none: no Retry-After
  };
  for (const Row& r : {
           Row{"0s-30s", 0, 503, false, Outcome::kUnavailable, 30 * kNsPerSec},
           Row{"0s-30s:503", 12 * kNsPerSec, 503, false, Outcome::kUnavailable, 18 * kNsPerSec},
           Row{"0s-30s:529", 30 * kNsPerSec - 1, 529, false, Outcome::kOverloaded, 1},
           Row{"10s-20s:500", 10 * kNsPerSec, 500, false, Outcome::kServerError, 10 * kNsPerSec},
           Row{"10s-20s:reset", 15 * kNsPerSec, 0, true, Outcome::kConnectError, std::nullopt},
           // Outside the window the provider serves.
           Row{"10s-20s:529", 20 * kNsPerSec, 200, false, Outcome::kOk, std::nullopt},
           Row{"10s-20s:529", 10 * kNsPerSec - 1, 200, false, Outcome::kOk, std::nullopt},
       }) {
    CAPTURE(r.outage);
    CAPTURE(r.now_ns);
    ProviderConfig c = with_allowance("1000/s");
    c.outages = {*parse_outage(r.outage)};
    ProviderPolicy policy(c);
    const auto d = policy.admit(r.now_ns, "t");
    CHECK(d.status == r.status);
    CHECK(d.reset_connection == r.reset);
    CHECK(d.outcome() == r.outcome);
    CHECK(d.retry_after_ns == r.retry_after_ns);
    CHECK(d.reason == (r.status == 200 ? DecisionReason::kServed : DecisionReason::kOutage));
  }
}

TEST_CASE("an outage comes before every other layer, and uses no allowance") {
  ProviderConfig c = with_allowance("2/s");
  c.capacity = *parse_rate("2/s");
  c.error_rate = 1;
  c.outages = {*parse_outage("0s-1s:529")};
  ProviderPolicy policy(c);
  for (int i = 0; i < 10; ++i) CHECK(policy.admit(500 * kNsPerMs, "t").status == 529);
  c.error_rate = 0;
  ProviderPolicy after(c);
  for (int i = 0; i < 10; ++i) after.admit(500 * kNsPerMs, "t");
  // The outage's rejections used none of the capacity: two are served after it, in the same
  // window, and the third meets the capacity.
  CHECK(after.admit(900 * kNsPerMs + kNsPerSec / 10, "t").status == 200);
  CHECK(after.admit(kNsPerSec, "t").status == 200);
  CHECK(after.admit(kNsPerSec, "t").status == 529);
}

TEST_CASE("Retry-After can be switched off") {
  ProviderConfig c = with_allowance("1/s");
  c.retry_after = false;
  c.outages = {*parse_outage("0s-10s")};
  ProviderPolicy policy(c);
  CHECK_FALSE(policy.admit(0, "t").retry_after_ns);
  CHECK(policy.admit(10 * kNsPerSec, "t").status == 200);
  const auto d = policy.admit(10 * kNsPerSec, "t");
  CHECK(d.status == 429);
  CHECK_FALSE(d.retry_after_ns);
  CHECK(d.has_quota);  // the RateLimit numbers are still there
}

TEST_CASE("injected errors come at the configured fraction, as 400") {
  for (const double rate : {0.0, 0.01, 0.1, 0.5, 1.0}) {
    CAPTURE(rate);
    ProviderConfig c;
    c.error_rate = rate;
    c.seed = 42;
    ProviderPolicy policy(c);
    constexpr int kRequests = 100'000;
    int errors = 0;
    for (int i = 0; i < kRequests; ++i) {
      const auto d = policy.admit(i, "t");
      if (d.status == 400) {
        ++errors;
        CHECK(d.reason == DecisionReason::kInjectedError);
        CHECK(d.outcome() == Outcome::kClientError);
      } else {
        REQUIRE(d.status == 200);
      }
    }
    // Within five standard deviations of the binomial mean.
    const double mean = rate * kRequests;
    const double sd = std::sqrt(kRequests * rate * (1 - rate));
    CHECK(std::abs(errors - mean) <= 5 * sd + 0.5);
  }
}

TEST_CASE("the provider's draws are seeded") {
  auto statuses = [](std::uint64_t seed) {
    ProviderConfig c;
    c.error_rate = 0.3;
    c.latency_min_ns = kNsPerMs;
    c.latency_max_ns = 50 * kNsPerMs;
    c.seed = seed;
    ProviderPolicy policy(c);
    std::string out;
    for (int i = 0; i < 200; ++i) {
      const auto d = policy.admit(i, "t");
      out += std::to_string(d.status) + ":" + std::to_string(d.service_ns) + " ";
    }
    return out;
  };
  CHECK(statuses(1) == statuses(1));
  CHECK(statuses(1) != statuses(2));
}

TEST_CASE("service time is the latency, or a draw within its range") {
  ProviderConfig c;
  c.latency_min_ns = 5 * kNsPerMs;
  c.latency_max_ns = 5 * kNsPerMs;
  ProviderPolicy fixed(c);
  CHECK(fixed.admit(0, "t").service_ns == 5 * kNsPerMs);
  c.latency_max_ns = 20 * kNsPerMs;
  ProviderPolicy ranged(c);
  bool varied = false;
  std::int64_t first = ranged.admit(0, "t").service_ns;
  for (int i = 0; i < 1000; ++i) {
    const auto s = ranged.admit(i, "t").service_ns;
    REQUIRE(s >= 5 * kNsPerMs);
    REQUIRE(s <= 20 * kNsPerMs);
    varied |= s != first;
  }
  CHECK(varied);
}

TEST_CASE("global capacity answers 529 before the tenant allowance answers 429") {
  ProviderConfig c = with_allowance("5/s");
  c.capacity = *parse_rate("8/s");
  ProviderPolicy policy(c);
  std::string seen;
  // Tenant a: 5 served, then 429 (capacity still has room: 7 used after these).
  for (int i = 0; i < 7; ++i) seen += std::to_string(policy.admit(0, "a").status) + " ";
  // Tenant b: one served; then capacity is gone, and 529 wins over b's own allowance.
  for (int i = 0; i < 3; ++i) seen += std::to_string(policy.admit(0, "b").status) + " ";
  CHECK(seen == "200 200 200 200 200 429 429 200 529 529 ");
  // Both limits are exhausted for tenant a now: capacity is checked first.
  const auto d = policy.admit(0, "a");
  CHECK(d.status == 529);
  CHECK(d.reason == DecisionReason::kCapacity);
  CHECK(d.has_quota);
  CHECK(d.limit == 8);
  CHECK(d.retry_after_ns == kNsPerSec);
  // The next window restores both.
  CHECK(policy.admit(kNsPerSec, "a").status == 200);
}

TEST_CASE("tenants have independent allowances") {
  ProviderConfig c = with_allowance("3/s");
  ProviderPolicy policy(c);
  std::string seen;
  // Interleaved, so a one-entry cache of the last tenant would show through.
  for (int i = 0; i < 5; ++i) {
    for (const char* tenant : {"a", "b", "c"}) {
      seen += std::string(tenant) + std::to_string(policy.admit(100 * i, tenant).status) + " ";
    }
  }
  CHECK(seen == "a200 b200 c200 a200 b200 c200 a200 b200 c200 a429 b429 c429 a429 b429 c429 ");
  // A tenant never seen before starts with its full allowance.
  CHECK(policy.admit(500, "d").status == 200);
  CHECK(policy.admit(500, "").status == 200);
}

TEST_CASE("a 429 carries the Retry-After and RateLimit numbers, a 200 its quota") {
  ProviderConfig c = with_allowance("2/s");
  ProviderPolicy policy(c);
  const auto first = policy.admit(250 * kNsPerMs, "t");
  CHECK(first.status == 200);
  CHECK(first.reason == DecisionReason::kServed);
  CHECK(first.has_quota);
  CHECK(first.limit == 2);
  CHECK(first.remaining == 1);
  CHECK(first.reset_ns == 750 * kNsPerMs);
  CHECK(first.window_ns == kNsPerSec);
  CHECK(policy.admit(250 * kNsPerMs, "t").remaining == 0);
  const auto rejected = policy.admit(400 * kNsPerMs, "t");
  CHECK(rejected.status == 429);
  CHECK(rejected.reason == DecisionReason::kAllowance);
  CHECK(rejected.outcome() == Outcome::kRateLimited);
  CHECK(rejected.retry_after_ns == 600 * kNsPerMs);
  CHECK(retry_after_seconds(*rejected.retry_after_ns) == 1);
  CHECK(rejected.remaining == 0);
  CHECK(rejected.window_ns == kNsPerSec);
}

TEST_CASE("without an allowance or capacity every request is served") {
  ProviderPolicy policy(ProviderConfig{});
  for (int i = 0; i < 10'000; ++i) REQUIRE(policy.admit(0, "t").status == 200);
  CHECK_FALSE(policy.admit(0, "t").has_quota);
}

TEST_CASE("an outage added at run time applies from then on") {
  ProviderPolicy policy(with_allowance("100/s"));
  CHECK(policy.admit(kNsPerSec, "t").status == 200);
  policy.add_outage({2 * kNsPerSec, 5 * kNsPerSec, OutageAction::kStatus529});
  CHECK(policy.admit(3 * kNsPerSec, "t").status == 529);
  CHECK(policy.admit(3 * kNsPerSec, "t").retry_after_ns == 2 * kNsPerSec);
  CHECK(policy.admit(5 * kNsPerSec, "t").status == 200);
}

namespace {

DeclaredTokens tokens(std::int64_t n) {
  return {n, false};
}

ProviderConfig llm_quotas(const char* requests, const char* token_rate,
                          std::optional<std::int64_t> spend_cap) {
  ProviderConfig c;
  // These cases read the request windows turning: named, as the per-second default has none.
  c.limiter = LimiterKind::kFixedWindow;
  if (requests) c.allowance = *parse_rate(requests);
  if (token_rate) c.token_allowance = *parse_rate(token_rate);
  c.spend_cap = spend_cap;
  return c;
}

}  // namespace

TEST_CASE("the declared token count is a whole number >= 0, or absent") {
  CHECK_FALSE(parse_declared_tokens(nullptr).count);
  CHECK_FALSE(parse_declared_tokens(nullptr).malformed);
  CHECK(parse_declared_tokens("0").count == 0);
  CHECK(parse_declared_tokens("1500").count == 1500);
  // RFC 9110 OWS around the value is not part of it.
  for (const char* spaced : {" 5", "5 ", "\t5\t"}) {
    CAPTURE(spaced);
    CHECK(parse_declared_tokens(spaced).count == 5);
  }
  for (const char* bad : {"", " ", "-1", "12k", "5 5", "1.5", "abc", "99999999999999999999"}) {
    CAPTURE(bad);
    CHECK(parse_declared_tokens(bad).malformed);
  }
}

TEST_CASE("a token allowance charges each request its declared tokens, then answers 429") {
  ProviderPolicy policy(llm_quotas(nullptr, "1000/min", std::nullopt));
  const auto first = policy.admit(0, "t", tokens(600));
  CHECK(first.status == 200);
  REQUIRE(first.tokens);
  CHECK(first.tokens->limit == 1000);
  CHECK(first.tokens->remaining == 400);
  CHECK(first.tokens->reset_ns == 60 * kNsPerSec);
  // 500 more do not fit in the 400 left: a retryable 429 that says when the window turns.
  const auto over = policy.admit(10 * kNsPerSec, "t", tokens(500));
  CHECK(over.status == 429);
  CHECK(over.reason == DecisionReason::kTokens);
  CHECK(over.should_retry);
  CHECK(over.retry_after_ns == 50 * kNsPerSec);
  CHECK(over.tokens->remaining == 400);
  // The refusal took nothing: 400 still fit.
  CHECK(policy.admit(10 * kNsPerSec, "t", tokens(400)).status == 200);
  CHECK(policy.admit(60 * kNsPerSec, "t", tokens(500)).status == 200);
}

TEST_CASE("a request declaring no tokens counts the default") {
  ProviderConfig c = llm_quotas(nullptr, "10/min", std::nullopt);
  c.default_tokens = 4;
  ProviderPolicy policy(c);
  CHECK(policy.admit(0, "t").tokens->remaining == 6);
  CHECK(policy.admit(0, "t").tokens->remaining == 2);
  CHECK(policy.admit(0, "t").reason == DecisionReason::kTokens);
  CHECK(policy.admit(0, "t", tokens(2)).status == 200);
}

TEST_CASE("more tokens than the whole allowance is a 429 not to retry, without Retry-After") {
  for (const auto kind :
       {LimiterKind::kFixedWindow, LimiterKind::kSlidingWindow, LimiterKind::kTokenBucket}) {
    CAPTURE(to_string(kind));
    ProviderConfig c = llm_quotas(nullptr, "1000/min", std::nullopt);
    c.limiter = kind;
    ProviderPolicy policy(c);
    const auto d = policy.admit(0, "t", tokens(1001));
    CHECK(d.status == 429);
    CHECK(d.reason == DecisionReason::kTooLarge);
    CHECK_FALSE(d.should_retry);
    CHECK_FALSE(d.retry_after_ns);
    // The token bucket holds the whole window, so the largest request that fits still does.
    CHECK(policy.admit(0, "t", tokens(1000)).status == 200);
  }
}

TEST_CASE("a spend cap serves tokens up to it, then 429 with no Retry-After, never refilled") {
  ProviderPolicy policy(llm_quotas(nullptr, nullptr, 1000));
  CHECK(policy.admit(0, "t", tokens(600)).status == 200);
  CHECK(policy.admit(0, "t", tokens(400)).status == 200);
  for (const std::int64_t t : {std::int64_t{0}, 3600 * kNsPerSec, 1000 * 3600 * kNsPerSec}) {
    const auto d = policy.admit(t, "t", tokens(1));
    CHECK(d.status == 429);
    CHECK(d.reason == DecisionReason::kSpendCap);
    CHECK(d.outcome() == Outcome::kRateLimited);
    CHECK_FALSE(d.should_retry);
    CHECK_FALSE(d.retry_after_ns);
    CHECK_FALSE(d.has_quota);
  }
  // A request of no tokens still goes through: it spends nothing.
  CHECK(policy.admit(0, "t", tokens(0)).status == 200);
  // Each tenant has its own cap.
  CHECK(policy.admit(0, "u", tokens(1000)).status == 200);
}

TEST_CASE("a spend cap refuses a request that would go past it, and spends only what is served") {
  ProviderPolicy policy(llm_quotas(nullptr, "500/min", 1000));
  CHECK(policy.admit(0, "t", tokens(500)).status == 200);
  // Turned away by the token rate: nothing spent.
  CHECK(policy.admit(0, "t", tokens(300)).reason == DecisionReason::kTokens);
  CHECK(policy.admit(60 * kNsPerSec, "t", tokens(300)).status == 200);
  // 200 left under the cap: 300 would go past it.
  CHECK(policy.admit(120 * kNsPerSec, "t", tokens(300)).reason == DecisionReason::kSpendCap);
  CHECK(policy.admit(120 * kNsPerSec, "t", tokens(200)).status == 200);
}

TEST_CASE("quota order: spend cap, then requests, then tokens, each names its reason") {
  SUBCASE("the spend cap comes before the rates, and uses none of them") {
    ProviderPolicy policy(llm_quotas("1/min", "100/min", 10));
    CHECK(policy.admit(0, "t", tokens(10)).status == 200);
    const auto d = policy.admit(0, "t", tokens(10));
    CHECK(d.reason == DecisionReason::kSpendCap);
    CHECK_FALSE(d.retry_after_ns);
  }
  SUBCASE("the request rate before the tokens: a 429 for requests takes no tokens") {
    ProviderPolicy policy(llm_quotas("1/min", "100/min", std::nullopt));
    CHECK(policy.admit(0, "t", tokens(10)).tokens->remaining == 90);
    const auto d = policy.admit(0, "t", tokens(10));
    CHECK(d.reason == DecisionReason::kAllowance);
    CHECK(d.should_retry);
    CHECK(d.retry_after_ns == 60 * kNsPerSec);
    CHECK_FALSE(d.tokens);
    CHECK(policy.admit(60 * kNsPerSec, "t", tokens(90)).tokens->remaining == 10);
  }
  SUBCASE("a 429 for tokens has used its request, and carries both quotas") {
    ProviderPolicy policy(llm_quotas("3/min", "100/min", std::nullopt));
    CHECK(policy.admit(0, "t", tokens(100)).status == 200);
    const auto d = policy.admit(0, "t", tokens(1));
    CHECK(d.reason == DecisionReason::kTokens);
    CHECK(d.has_quota);
    CHECK(d.remaining == 1);
    REQUIRE(d.tokens);
    CHECK(d.tokens->remaining == 0);
    CHECK(policy.admit(0, "t", tokens(0)).remaining == 0);
  }
  SUBCASE("capacity and a malformed count come before the tenant's quotas") {
    ProviderConfig c = llm_quotas(nullptr, "100/min", 5);
    c.capacity = *parse_rate("1/min");
    ProviderPolicy policy(c);
    CHECK(policy.admit(0, "t", {std::nullopt, true}).reason == DecisionReason::kBadTokens);
    CHECK(policy.admit(0, "t", {std::nullopt, true}).status == 400);
    CHECK(policy.admit(0, "t", tokens(5)).status == 200);
    CHECK(policy.admit(0, "t", tokens(5)).reason == DecisionReason::kCapacity);
  }
}

TEST_CASE("each reason has its own name") {
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < kDecisionReasonCount; ++i) {
    names.push_back(to_string(static_cast<DecisionReason>(i)));
    CHECK(names.back() != "?");
  }
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  CHECK(to_string(DecisionReason::kSpendCap) == "spend_cap_exceeded");
  CHECK(to_string(DecisionReason::kTokens) == "token_rate_exceeded");
  CHECK(to_string(DecisionReason::kAllowance) == "request_rate_exceeded");
}

TEST_CASE("a body's token field is a whole number >= 0, absent, it declares nothing") {
  CHECK_FALSE(declared_tokens_in_body("", "max_tokens").count);
  CHECK_FALSE(declared_tokens_in_body("", "max_tokens").malformed);
  CHECK_FALSE(declared_tokens_in_body(R"({"model":"m"})", "max_tokens").count);
  CHECK_FALSE(declared_tokens_in_body(R"({"model":"m"})", "max_tokens").malformed);
  CHECK(declared_tokens_in_body(R"({"max_tokens":1024,"x":[1]})", "max_tokens").count == 1024);
  CHECK(declared_tokens_in_body(R"({"max_tokens":0})", "max_tokens").count == 0);
  // Only the top level counts.
  CHECK_FALSE(declared_tokens_in_body(R"({"a":{"max_tokens":5}})", "max_tokens").count);
  for (const char* bad :
       {R"({"max_tokens":-1})", R"({"max_tokens":1.5})", R"({"max_tokens":"100"})",
        R"({"max_tokens":null})", R"({"max_tokens":99999999999999999999})",
        R"({"max_tokens":18446744073709551615})", R"([1,2])", "not json", R"({"max_tokens":1)"}) {
    CAPTURE(bad);
    CHECK(declared_tokens_in_body(bad, "max_tokens").malformed);
  }
}
