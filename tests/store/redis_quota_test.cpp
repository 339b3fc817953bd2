// The Redis store against the in-process limiters: the same arrivals, the same answers, for
// every limiter kind, with capacity in front of the allowance; and the shared clock.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "provider_policy.hpp"
#include "redis_harness.hpp"
#include "redis_quota.hpp"
#include "rng.hpp"

using namespace stampede;
using namespace live_test;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;

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

std::int64_t wall_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
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

std::unique_ptr<RedisQuota> open(const RedisServer& redis, const std::string& prefix,
                                 const ProviderConfig& c) {
  auto target = parse_redis_url(redis.url(prefix));
  auto limits = script_limits(c);
  REQUIRE(target);
  INFO(limits.error());
  REQUIRE(limits);
  auto store = std::make_unique<RedisQuota>(*target, *limits, 1.0);
  const auto e = store->connect();
  INFO(e.value_or(""));
  REQUIRE(!e);
  REQUIRE(store->join(wall_now()));
  return store;
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
      {"fixed window", config(LimiterKind::kFixedWindow, {20, kSec}, {45, kSec}), kSec / 3},
      {"sliding window", config(LimiterKind::kSlidingWindow, {20, kSec}, {45, kSec}), kSec / 3},
      {"token bucket", config(LimiterKind::kTokenBucket, {20, kSec}, {45, kSec}), kSec / 3},
      // 7/s: the bucket's time is scaled by 7; the jump takes it six days from t = 0, where
      // a double's spacing is still 1 for every value the script handles.
      {"token bucket 7/s, burst 3, days in",
       config(LimiterKind::kTokenBucket, {7, kSec}, {40, 2 * kSec}, 3), 6 * 24 * 3600 * kSec},
      {"sliding window of a minute, days in",
       config(LimiterKind::kSlidingWindow, {30, 60 * kSec}, {1000, 60 * kSec}),
       6 * 24 * 3600 * kSec},
  };
  int prefix = 0;
  for (const auto& c : cases) {
    auto store = open(redis, "same-" + std::to_string(prefix++), c.config);
    ProviderPolicy local(c.config);
    ProviderPolicy shared(c.config, store.get());
    int served = 0, capacity = 0, allowance = 0;
    for (const auto& a : arrivals(7, 3000, c.jump_ns)) {
      const Decision want = local.admit(a.t_ns, a.tenant);
      const Decision got = shared.admit(a.t_ns, a.tenant);
      INFO(c.name << " at t=" << a.t_ns << " for " << a.tenant);
      REQUIRE(got.status == want.status);
      REQUIRE(got.reason == want.reason);
      REQUIRE(got.retry_after_ns == want.retry_after_ns);
      REQUIRE(got.limit == want.limit);
      REQUIRE(got.remaining == want.remaining);
      REQUIRE(got.reset_ns == want.reset_ns);
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

TEST_CASE("replicas share one allowance, and a reset on one is followed by the others") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  const auto c = config(LimiterKind::kFixedWindow, {5, kSec}, {1000, kSec});
  auto a = open(redis, "shared", c);
  auto b = open(redis, "shared", c);
  CHECK(a->epoch_wall_ns() == b->epoch_wall_ns());  // b joined a's scenario
  int admitted = 0;
  for (int i = 0; i < 8; ++i) {
    RedisQuota& replica = i % 2 ? *b : *a;
    admitted += replica.decide(100 + i, "t").allowance->admitted;
  }
  CHECK(admitted == 5);

  // b decides a later arrival first: a's earlier one is decided at b's time, in order.
  CHECK(b->decide(kSec + 500, "t").t_ns == kSec + 500);
  const auto late = a->decide(kSec + 100, "t");
  CHECK(late.t_ns == kSec + 500);

  const std::int64_t old_epoch = a->epoch_wall_ns();
  REQUIRE(b->reset(old_epoch + 10 * kSec));  // t = 0 ten seconds later
  const auto after = a->decide(10 * kSec + 7, "t");
  CHECK(a->epoch_wall_ns() == old_epoch + 10 * kSec);
  CHECK(after.t_ns == 7);  // the same moment on the new clock
  CHECK(after.allowance->admitted);
  CHECK(after.allowance->remaining == 4);  // a fresh allowance
}

TEST_CASE("a store lost mid-run answers unavailable: 503, not a crash") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  const auto c = config(LimiterKind::kTokenBucket, {5, kSec}, {1000, kSec});
  auto store = open(redis, "lost", c);
  CHECK(!store->decide(0, "t").unavailable);
  redis.stop();
  for (int i = 0; i < 3; ++i) CHECK(store->decide(kSec + i, "t").unavailable);
  ProviderPolicy policy(c, store.get());
  const Decision d = policy.admit(2 * kSec, "t");
  CHECK(d.status == 503);
  CHECK(d.reason == DecisionReason::kStoreUnavailable);
  CHECK(d.retry_after_ns == kSec);
}
