// The Redis store against the in-process limiters: the same arrivals, the same answers, for
// every limiter kind, with capacity in front of the allowance, and with the LLM token quotas
// (spend cap, request allowance, token allowance) at varied costs; the shared clock, and
// replicas sharing one allowance and one spend cap.
#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "duration.hpp"
#include "model/provider_policy.hpp"
#include "open_quota.hpp"
#include "rng.hpp"
#include "store/redis_quota.hpp"
#include "support/redis.hpp"

using namespace stampede;
using namespace support;

namespace {

struct Arrival {
  std::int64_t t_ns;
  std::string tenant;
};

// Arrivals from three tenants, about 100 a second, in bursts (a tenth land at the same
// nanosecond as the one before), with a jump of `jump_ns` halfway: windows, logs and buckets
// are exercised full, draining and far from t = 0.
std::vector<Arrival> arrivals(std::uint64_t seed, int n, std::int64_t jump_ns) {
  Rng rng = make_stream(seed, 1);
  std::vector<Arrival> out;
  std::int64_t t = 0;
  for (int i = 0; i < n; ++i) {
    if (rng.unit() >= 0.1) t += rng.uniform(0, 20'000'000);
    if (i == n / 2) t += jump_ns;
    out.push_back({t, "tenant-" + std::to_string(rng.uniform(0, 2))});
  }
  return out;
}

// The same arrivals, each declaring tokens: mostly up to a third of the token allowance's
// count, some none (the default counts), some 0, and some more than the whole allowance.
struct CostlyArrival {
  Arrival arrival;
  DeclaredTokens tokens;
};
std::vector<CostlyArrival> costly_arrivals(std::uint64_t seed, int n, std::int64_t jump_ns,
                                           std::int64_t token_count) {
  Rng rng = make_stream(seed, 2);
  std::vector<CostlyArrival> out;
  for (auto& a : arrivals(seed, n, jump_ns)) {
    const double r = rng.unit();
    DeclaredTokens t;
    if (r < 0.05) {
      t.count = rng.uniform(token_count + 1, 2 * token_count);  // too large
    } else if (r < 0.10) {
      t.count = std::nullopt;
    } else if (r < 0.15) {
      t.count = 0;
    } else {
      t.count = rng.uniform(1, token_count / 3);
    }
    out.push_back({std::move(a), t});
  }
  return out;
}

// Every field of the answer the quota layers decide.
void require_same(const Decision& got, const Decision& want) {
  REQUIRE(got.status == want.status);
  REQUIRE(got.reason == want.reason);
  REQUIRE(got.retry_after_ns == want.retry_after_ns);
  REQUIRE(got.should_retry == want.should_retry);
  REQUIRE(got.has_quota == want.has_quota);
  REQUIRE(got.limit == want.limit);
  REQUIRE(got.remaining == want.remaining);
  REQUIRE(got.reset_ns == want.reset_ns);
  REQUIRE(got.window_ns == want.window_ns);
  REQUIRE(got.tokens.has_value() == want.tokens.has_value());
  if (want.tokens) {
    REQUIRE(got.tokens->limit == want.tokens->limit);
    REQUIRE(got.tokens->remaining == want.tokens->remaining);
    REQUIRE(got.tokens->reset_ns == want.tokens->reset_ns);
  }
}

ProviderConfig config(LimiterKind kind, Rate allowance, Rate capacity,
                      std::optional<std::int64_t> burst = std::nullopt) {
  ProviderConfig c;
  c.limiter = kind;
  c.allowance = allowance;
  c.capacity = capacity;
  c.burst = burst;
  return c;
}

}  // namespace

TEST_CASE("the Redis store answers every arrival as the in-process limiters do") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  struct Case {
    std::string name;
    ProviderConfig config;
    std::int64_t jump_ns;
  };
  const std::vector<Case> cases{
      {"fixed window", config(LimiterKind::kFixedWindow, {20, kNsPerSec}, {45, kNsPerSec}),
       kNsPerSec / 3},
      {"sliding window", config(LimiterKind::kSlidingWindow, {20, kNsPerSec}, {45, kNsPerSec}),
       kNsPerSec / 3},
      {"token bucket", config(LimiterKind::kTokenBucket, {20, kNsPerSec}, {45, kNsPerSec}),
       kNsPerSec / 3},
      // 7/s: the bucket's time is scaled by 7; the jump takes it six days from t = 0, where
      // a double's spacing is still 1 for every value the script handles.
      {"token bucket 7/s, burst 3, days in",
       config(LimiterKind::kTokenBucket, {7, kNsPerSec}, {40, 2 * kNsPerSec}, 3),
       6 * 24 * 3600 * kNsPerSec},
      {"sliding window of a minute, days in",
       config(LimiterKind::kSlidingWindow, {30, 60 * kNsPerSec}, {1000, 60 * kNsPerSec}),
       6 * 24 * 3600 * kNsPerSec},
      // The default: 1200/min a second at a time (a bucket of 20), 45/s in windows of a second.
      {"per-second", config(LimiterKind::kPerSecond, {1200, 60 * kNsPerSec}, {45, kNsPerSec}),
       kNsPerSec / 3},
  };
  int prefix = 0;
  for (const auto& c : cases) {
    auto store = open_quota(redis, "same-" + std::to_string(prefix++), c.config);
    ProviderPolicy local(c.config);
    ProviderPolicy shared(c.config, store.get());
    int served = 0, capacity = 0, allowance = 0;
    for (const auto& a : arrivals(7, 3000, c.jump_ns)) {
      const Decision want = local.admit(a.t_ns, a.tenant);
      const Decision got = shared.admit(a.t_ns, a.tenant);
      INFO(c.name << " at t=" << a.t_ns << " for " << a.tenant);
      require_same(got, want);
      REQUIRE(got.quota_t_ns == a.t_ns);
      served += got.status == 200;
      capacity += got.status == 529;
      allowance += got.status == 429;
    }
    MESSAGE(c.name << ": " << served << " served, " << capacity << " 529, " << allowance << " 429");
    // The sequence must reach every layer, or the comparison proves little.
    CHECK(served > 0);
    CHECK(capacity > 0);
    CHECK(allowance > 0);
  }
}

TEST_CASE("the Redis store answers the token quotas as the in-process layers do") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  struct Case {
    std::string name;
    LimiterKind kind;
    Rate tokens;
    std::int64_t spend_cap;
    std::int64_t jump_ns;
  };
  const std::vector<Case> cases{
      {"fixed window", LimiterKind::kFixedWindow, {400, kNsPerSec}, 6000, kNsPerSec / 3},
      {"sliding window", LimiterKind::kSlidingWindow, {400, kNsPerSec}, 6000, kNsPerSec / 3},
      {"token bucket", LimiterKind::kTokenBucket, {400, kNsPerSec}, 6000, kNsPerSec / 3},
      // 70/s: the bucket's time is scaled by 7, its burst is the whole 70; days from t = 0.
      {"token bucket 70/s, days in",
       LimiterKind::kTokenBucket,
       {70, kNsPerSec},
       1500,
       6 * 24 * 3600 * kNsPerSec},
      {"sliding window of ten seconds, days in",
       LimiterKind::kSlidingWindow,
       {3000, 10 * kNsPerSec},
       8000,
       6 * 24 * 3600 * kNsPerSec},
  };
  int prefix = 0;
  for (const auto& c : cases) {
    auto cfg = config(c.kind, {20, kNsPerSec}, {80, kNsPerSec});
    cfg.token_allowance = c.tokens;
    cfg.spend_cap = c.spend_cap;
    cfg.default_tokens = 3;
    auto store = open_quota(redis, "tokens-" + std::to_string(prefix++), cfg);
    ProviderPolicy local(cfg);
    ProviderPolicy shared(cfg, store.get());
    std::array<int, kDecisionReasonCount> seen{};
    int decisions = 0;
    for (const auto& [a, tokens] : costly_arrivals(11, 4000, c.jump_ns, c.tokens.count)) {
      const Decision want = local.admit(a.t_ns, a.tenant, tokens);
      const Decision got = shared.admit(a.t_ns, a.tenant, tokens);
      INFO(c.name << " at t=" << a.t_ns << " for " << a.tenant << " costing "
                  << tokens.count.value_or(-1));
      require_same(got, want);
      REQUIRE(got.quota_t_ns == a.t_ns);
      ++seen[static_cast<std::size_t>(got.reason)];
      ++decisions;
    }
    std::string counts;
    for (std::size_t r = 0; r < kDecisionReasonCount; ++r) {
      if (seen[r])
        counts += " " + std::string(to_string(DecisionReason(r))) + "=" + std::to_string(seen[r]);
    }
    MESSAGE(c.name << ": " << decisions << " decisions:" << counts);
    // Every layer must answer some, or the comparison proves little.
    for (const auto r :
         {DecisionReason::kServed, DecisionReason::kCapacity, DecisionReason::kAllowance,
          DecisionReason::kTokens, DecisionReason::kTooLarge, DecisionReason::kSpendCap}) {
      INFO(c.name << ": " << to_string(r));
      CHECK(seen[static_cast<std::size_t>(r)] > 0);
    }
  }
}

TEST_CASE("replicas share one token allowance and one spend cap, a reset restores the cap") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  ProviderConfig c;
  c.limiter = LimiterKind::kFixedWindow;
  c.token_allowance = Rate{50, kNsPerSec};
  c.spend_cap = 100;
  auto store_a = open_quota(redis, "spend", c);
  auto store_b = open_quota(redis, "spend", c);
  ProviderPolicy a(c, store_a.get());
  ProviderPolicy b(c, store_b.get());
  const auto tokens = [](std::int64_t n) { return DeclaredTokens{n, false}; };

  // One token allowance: 30 on a, then 30 on b is more than the 50 a second.
  CHECK(a.admit(0, "t", tokens(30)).status == 200);
  const Decision over = b.admit(1, "t", tokens(30));
  CHECK(over.reason == DecisionReason::kTokens);
  REQUIRE(over.tokens);
  CHECK(over.tokens->remaining == 20);
  CHECK(b.admit(2, "t", tokens(20)).status == 200);  // spent: 50
  // One spend cap: 50 more across the two, then nothing but what is left of it.
  CHECK(a.admit(kNsPerSec, "t", tokens(30)).status == 200);
  CHECK(b.admit(kNsPerSec + 1, "t", tokens(20)).status == 200);  // spent: 100
  const Decision capped = a.admit(2 * kNsPerSec, "t", tokens(1));
  CHECK(capped.status == 429);
  CHECK(capped.reason == DecisionReason::kSpendCap);
  CHECK(!capped.should_retry);
  CHECK_FALSE(capped.retry_after_ns);
  CHECK(b.admit(2 * kNsPerSec + 1, "t", tokens(1)).reason == DecisionReason::kSpendCap);
  CHECK(b.admit(2 * kNsPerSec + 2, "u", tokens(1)).status == 200);  // per tenant
  CHECK(b.admit(2 * kNsPerSec + 3, "t", tokens(0)).status == 200);  // nothing left, nothing asked

  // A reset on b restores the cap for both replicas.
  REQUIRE(store_b->reset(store_b->epoch_wall_ns() + 10 * kNsPerSec));
  CHECK(a.admit(10 * kNsPerSec + 5, "t", tokens(40)).status == 200);
  CHECK(b.admit(11 * kNsPerSec, "t", tokens(40)).status == 200);
  CHECK(a.admit(12 * kNsPerSec, "t", tokens(40)).reason == DecisionReason::kSpendCap);
  CHECK(a.admit(12 * kNsPerSec + 1, "t", tokens(20)).status == 200);
}

TEST_CASE("script_limits: the token quotas are kept in the store, within exact arithmetic") {
  ProviderConfig c;
  c.limiter = LimiterKind::kTokenBucket;
  c.allowance = Rate{50, 60 * kNsPerSec};
  c.token_allowance = Rate{80000, 60 * kNsPerSec};
  c.spend_cap = 1'000'000;
  const auto ok = script_limits(c);
  INFO(ok.error());
  REQUIRE(ok);
  REQUIRE(ok->tokens);
  CHECK(ok->tokens->burst == 80000);  // the whole window, as in process
  CHECK(ok->allowance->burst == 1);   // the request allowance keeps its one second
  CHECK(ok->spend_cap == 1'000'000);

  // 12345/s leaves the bucket's scaled time beyond 2^53 within the week.
  c.token_allowance = Rate{12345, kNsPerSec};
  const auto big = script_limits(c);
  REQUIRE(!big);
  CHECK(big.error().find("--token-allowance") != std::string::npos);
  CHECK(big.error().find("exact arithmetic") != std::string::npos);
  c.limiter = LimiterKind::kFixedWindow;  // no scaled time: fine
  CHECK(script_limits(c));

  c.spend_cap = std::int64_t{1} << 53;
  const auto cap = script_limits(c);
  REQUIRE(!cap);
  CHECK(cap.error().find("--spend-cap") != std::string::npos);
}

TEST_CASE("replicas share one allowance, and a reset on one is followed by the others") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  const auto c = config(LimiterKind::kFixedWindow, {5, kNsPerSec}, {1000, kNsPerSec});
  auto a = open_quota(redis, "shared", c);
  auto b = open_quota(redis, "shared", c);
  CHECK(a->epoch_wall_ns() == b->epoch_wall_ns());  // b joined a's scenario
  int admitted = 0;
  for (int i = 0; i < 8; ++i) {
    RedisQuota& replica = i % 2 ? *b : *a;
    admitted += replica.decide(100 + i, "t", 1).allowance->admitted;
  }
  CHECK(admitted == 5);

  // b decides a later arrival first: a's earlier one is decided at b's time, in order.
  CHECK(b->decide(kNsPerSec + 500, "t", 1).t_ns == kNsPerSec + 500);
  const auto late = a->decide(kNsPerSec + 100, "t", 1);
  CHECK(late.t_ns == kNsPerSec + 500);

  const std::int64_t old_epoch = a->epoch_wall_ns();
  REQUIRE(b->reset(old_epoch + 10 * kNsPerSec));  // t = 0 ten seconds later
  const auto after = a->decide(10 * kNsPerSec + 7, "t", 1);
  CHECK(a->epoch_wall_ns() == old_epoch + 10 * kNsPerSec);
  CHECK(after.t_ns == 7);  // the same moment on the new clock
  CHECK(after.allowance->admitted);
  CHECK(after.allowance->remaining == 4);  // a fresh allowance
}

TEST_CASE("a store lost mid-run answers unavailable: 503, not a crash") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  const auto c = config(LimiterKind::kTokenBucket, {5, kNsPerSec}, {1000, kNsPerSec});
  auto store = open_quota(redis, "lost", c);
  CHECK(!store->decide(0, "t", 1).unavailable);
  redis.stop();
  for (int i = 0; i < 3; ++i) CHECK(store->decide(kNsPerSec + i, "t", 1).unavailable);
  ProviderPolicy policy(c, store.get());
  const Decision d = policy.admit(2 * kNsPerSec, "t");
  CHECK(d.status == 503);
  CHECK(d.reason == DecisionReason::kStoreUnavailable);
  CHECK(d.retry_after_ns == kNsPerSec);
}
