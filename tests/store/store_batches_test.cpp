// The Redis store's batches: decide_all answers a batch exactly as one decide after another
// does, stops where one decide would lose the connection, and replicas that batch their
// concurrent requests still admit exactly the shared allowance.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "duration.hpp"
#include "open_quota.hpp"
#include "rng.hpp"
#include "scenario_clock.hpp"
#include "store/redis_quota.hpp"
#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/redis.hpp"

using namespace stampede;
using namespace support;

namespace {

void require_same(const std::optional<LimitVerdict>& got, const std::optional<LimitVerdict>& want) {
  REQUIRE(got.has_value() == want.has_value());
  if (!want) return;
  REQUIRE(got->admitted == want->admitted);
  REQUIRE(got->retry_after_ns == want->retry_after_ns);
  REQUIRE(got->limit == want->limit);
  REQUIRE(got->remaining == want->remaining);
  REQUIRE(got->reset_ns == want->reset_ns);
  REQUIRE(got->too_large == want->too_large);
}

void require_same(const QuotaVerdicts& got, const QuotaVerdicts& want) {
  REQUIRE(got.t_ns == want.t_ns);
  REQUIRE(got.unavailable == want.unavailable);
  REQUIRE(got.spend_capped == want.spend_capped);
  require_same(got.capacity, want.capacity);
  require_same(got.allowance, want.allowance);
  require_same(got.tokens, want.tokens);
}

}  // namespace

TEST_CASE("decide_all answers a batch as one decide after another does, for every limiter") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  int prefix = 0;
  for (const auto kind :
       {LimiterKind::kFixedWindow, LimiterKind::kSlidingWindow, LimiterKind::kTokenBucket}) {
    ProviderConfig c;
    c.limiter = kind;
    c.allowance = Rate{20, kNsPerSec};
    c.capacity = Rate{50, kNsPerSec};
    c.token_allowance = Rate{400, kNsPerSec};
    c.spend_cap = 8000;  // reached part-way
    const std::string name = "batch-" + std::to_string(prefix++);
    auto one_by_one = open_quota(redis, name + "-one", c);
    auto batched = open_quota(redis, name + "-all", c);
    // Arrivals from three tenants in bursts, some at the same nanosecond, some out of order
    // (the store decides them at its latest time), costing 0 to more than the allowance.
    Rng rng = make_stream(3, static_cast<std::uint64_t>(kind));
    std::vector<std::string> tenants;
    std::vector<QuotaAsk> asks;
    std::int64_t t = 0;
    for (int i = 0; i < 3000; ++i) tenants.push_back("tenant-" + std::to_string(rng.uniform(0, 2)));
    for (int i = 0; i < 3000; ++i) {
      if (rng.unit() >= 0.1) t += rng.uniform(0, 20'000'000);
      const std::int64_t skew = rng.unit() < 0.05 ? rng.uniform(0, 5'000'000) : 0;
      const std::int64_t cost = rng.unit() < 0.05 ? rng.uniform(401, 800) : rng.uniform(0, 40);
      asks.push_back({t - skew, tenants[i], cost});
    }
    std::size_t at = 0;
    int admitted = 0, batches = 0;
    while (at < asks.size()) {
      const std::size_t n = std::min<std::size_t>(rng.uniform(1, 60), asks.size() - at);
      const auto got = batched->decide_all(std::span(asks).subspan(at, n));
      REQUIRE(got.size() == n);
      for (std::size_t i = 0; i < n; ++i) {
        const QuotaAsk& a = asks[at + i];
        const QuotaVerdicts want = one_by_one->decide(a.now_ns, a.tenant, a.cost);
        INFO(to_string(kind) << " arrival " << at + i << " at t=" << a.now_ns);
        require_same(got[i], want);
        admitted += want.tokens && want.tokens->admitted;
      }
      at += n;
      ++batches;
    }
    MESSAGE(to_string(kind) << ": " << admitted << " of 3000 admitted, in " << batches
                            << " batches");
    CHECK(admitted > 0);
    CHECK(admitted < 3000);
  }
}

TEST_CASE("a batch stops where one decide would lose the store: the rest answer unavailable") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  ProviderConfig c;
  c.limiter = LimiterKind::kTokenBucket;
  c.allowance = Rate{7, kNsPerSec};  // the bucket's time scaled by 7: beyond 2^53 after 14.9 days
  auto store = open_quota(redis, "beyond", c);
  const std::int64_t far_ns = 20LL * 24 * 3600 * kNsPerSec;
  const std::vector<QuotaAsk> asks{{kNsPerSec, "t", 1}, {far_ns, "t", 1}, {far_ns + 1, "t", 1}};
  const auto got = store->decide_all(asks);
  REQUIRE(got.size() == 3);
  CHECK(!got[0].unavailable);
  CHECK(got[0].allowance->admitted);
  CHECK(got[1].unavailable);
  CHECK(got[2].unavailable);
  CHECK(got[2].t_ns == far_ns + 1);
}

TEST_CASE("a batch asked on an old epoch is decided on the new one's clock") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  ProviderConfig c;
  c.allowance = Rate{5, kNsPerSec};
  auto a = open_quota(redis, "epoch", c);
  auto b = open_quota(redis, "epoch", c);
  REQUIRE(b->reset(a->epoch_wall_ns() + 10 * kNsPerSec));  // t = 0 ten seconds later
  const std::vector<QuotaAsk> asks{{10 * kNsPerSec + 7, "t", 1}, {10 * kNsPerSec + 9, "t", 1}};
  const auto got = a->decide_all(asks);
  CHECK(a->epoch_wall_ns() == b->epoch_wall_ns());
  CHECK(got[0].t_ns == 7);
  CHECK(got[1].t_ns == 9);
  CHECK(got[1].allowance->remaining == 3);  // a fresh allowance, two taken
}

// Each replica's loops ask the store on a line of their own, a round trip a batch.
TEST_CASE("two replicas batching many concurrent requests admit exactly the shared allowance") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  constexpr int kAllowance = 300;
  // The hour's whole allowance at once: a fixed window, named, as the per-second default is
  // not.
  const std::vector<std::string> flags{"--allowance", std::to_string(kAllowance) + "/h",
                                       "--limiter",   "fixed-window",
                                       "--store",     redis.url("batches")};
  FakeProvider a(flags);
  FakeProvider b(flags);
  REQUIRE(a.started());
  REQUIRE(b.started());
  // Many connections at once on each replica, so its requests wait for the store together.
  constexpr int kConnections = 24;
  constexpr int kEach = 25;
  std::atomic<int> ok{0}, refused{0}, other{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 2 * kConnections; ++i) {
    clients.emplace_back([&, i] {
      Connection conn(i % 2 ? b.data_port() : a.data_port());
      for (int k = 0; k < kEach; ++k) {
        const int status = conn.request("GET", "/v1/messages").status;
        (status == 200 ? ok : status == 429 ? refused : other).fetch_add(1);
      }
    });
  }
  for (auto& t : clients) t.join();
  CHECK(other.load() == 0);
  CHECK(ok.load() == kAllowance);
  CHECK(refused.load() == 2 * kConnections * kEach - kAllowance);
  // Each replica's own record agrees with what its clients were answered.
  const auto sa = a.stats(), sb = b.stats();
  REQUIRE(!sa.is_null());
  REQUIRE(!sb.is_null());
  CHECK(sa["requests"].get<int>() + sb["requests"].get<int>() == 2 * kConnections * kEach);
  CHECK(sa["totals"]["ok"].get<int>() + sb["totals"]["ok"].get<int>() == kAllowance);
}

TEST_CASE("the native server with a store: a reset on one replica is followed by the other") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  const std::vector<std::string> flags{"--allowance",   "3/h",     "--limiter",
                                       "fixed-window",  "--store", redis.url("reset"),
                                       "--http-server", "native"};
  FakeProvider a(flags);
  FakeProvider b(flags);
  REQUIRE(a.started());
  REQUIRE(b.started());
  for (int i = 0; i < 3; ++i) CHECK(http(a.data_port(), "GET", "/v1/messages").status == 200);
  CHECK(http(b.data_port(), "GET", "/v1/messages").status == 429);  // one allowance for both
  CHECK(http(b.admin_port(), "POST", "/admin/reset").status == 200);
  // a finds the store's new epoch on its next round trip: a fresh allowance.
  CHECK(http(a.data_port(), "GET", "/v1/messages").status == 200);
  CHECK(a.stats()["requests"].get<int>() == 1);  // its counters restarted with the store
}

TEST_CASE("the native server with a store: a hop delay decides each arrival as it lands") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  FakeProvider p({"--allowance", "2/h", "--limiter", "fixed-window", "--store", redis.url("hop"),
                  "--hop-delay", "1ms,0ms", "--http-server", "native"});
  REQUIRE(p.started());
  std::vector<int> statuses;
  for (int i = 0; i < 4; ++i) statuses.push_back(http(p.data_port(), "GET", "/v1/messages").status);
  CHECK(statuses == std::vector<int>{200, 200, 429, 429});
}

TEST_CASE("the native server with a store: a row's If-Match is read once the store answers") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  FakeProvider p({"--mode", "occ", "--store", redis.url("occ"), "--http-server", "native"});
  REQUIRE(p.started());
  // The line decides on a thread of its own: the request's header is its copy, not the loop's.
  CHECK(http(p.data_port(), "PUT", "/row", {{"If-Match", "\"0\""}}).status == 200);
  CHECK(http(p.data_port(), "PUT", "/row", {{"If-Match", "\"0\""}}).status == 412);
  const Response row = http(p.data_port(), "GET", "/row");
  CHECK(row.status == 200);
  CHECK(row.header("etag") == "\"1\"");
}
