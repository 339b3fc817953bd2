// LockedProvider with a shared store: the store's round trip is made without the provider's
// lock (the other threads decide, and the admin API reads, while it is out), and the arrivals
// that asked it are still settled in the store's order. Fake stores show the locking and the
// order; a real redis-server behind them, that the decisions are still Redis's.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "duration.hpp"
#include "model/send_attribution.hpp"
#include "open_quota.hpp"
#include "scenario_clock.hpp"
#include "server/locked_provider.hpp"
#include "store/redis_quota.hpp"
#include "support/redis.hpp"

using namespace stampede;
using namespace support;

namespace {

// Only a guard against a test that would otherwise hang: what it waits for takes microseconds.
constexpr auto kHangGuard = std::chrono::seconds(30);

// A store that says when a decision has reached it, and can hold it until released.
class HeldStore : public SharedStore {
 public:
  explicit HeldStore(SharedStore* inner = nullptr) : inner_(inner) {}
  QuotaVerdicts decide(std::int64_t now_ns, std::string_view tenant, std::int64_t cost) override {
    if (!told_) {
      told_ = true;
      reached_.set_value();
      if (hold_) release_.get_future().wait();
    }
    if (inner_) return inner_->decide(now_ns, tenant, cost);
    QuotaVerdicts q;
    q.t_ns = now_ns;
    return q;
  }
  std::int64_t epoch_wall_ns() const override { return inner_ ? inner_->epoch_wall_ns() : 0; }
  bool reset(std::int64_t wall_ns) override { return !inner_ || inner_->reset(wall_ns); }

  void hold() { hold_ = true; }
  void wait_reached() { reached_.get_future().wait(); }
  void release() { release_.set_value(); }

 private:
  SharedStore* inner_;
  bool hold_ = false;
  bool told_ = false;
  std::promise<void> reached_;
  std::promise<void> release_;
};

// A store on a clock of its own that moves on at every decision, and lets the other threads
// run in the middle of each: an arrival settled out of the store's order shows as time going
// back in the log.
class TickingStore : public SharedStore {
 public:
  QuotaVerdicts decide(std::int64_t /*now_ns*/, std::string_view /*tenant*/,
                       std::int64_t /*cost*/) override {
    QuotaVerdicts q;
    q.t_ns = ++ticks_ * 1000;
    std::this_thread::yield();
    return q;
  }
  std::int64_t epoch_wall_ns() const override { return 0; }
  bool reset(std::int64_t /*wall_ns*/) override { return true; }

 private:
  std::int64_t ticks_ = 0;
};

LockedProvider::Options options(SharedStore* store, std::size_t threads) {
  LockedProvider::Options o;
  o.config.allowance = Rate{1000, kNsPerSec};
  o.store = store;
  o.threads = threads;
  o.keep_log = true;
  return o;
}

LockedProvider::Admission admit(LockedProvider& p, std::size_t thread,
                                const DeclaredTokens& tokens = {}) {
  return p.admit(thread, ScenarioClock::steady_ns(), "t", SendClaim{}, "", {}, tokens);
}

// While one arrival is held in the store (until release()): a request the store is not asked
// about is decided, and the admin API's reads go through. Each would wait for the held arrival
// if the lock were held across the store's round trip.
template <class Release>
void check_others_go_on(LockedProvider& provider, HeldStore& store, Release release) {
  auto held = std::async(std::launch::async, [&] { return admit(provider, 0); });
  store.wait_reached();
  auto others = std::async(std::launch::async, [&] {
    const auto bad_tokens = admit(provider, 1, DeclaredTokens{std::nullopt, true});
    (void)provider.stats_json();
    (void)provider.results_json();
    return bad_tokens.decision.status;
  });
  const bool went_on = others.wait_for(kHangGuard) == std::future_status::ready;
  release();
  CHECK(went_on);
  CHECK(others.get() == 400);
  const auto a = held.get();
  CHECK(a.decision.status == 200);
  CHECK(a.decision.reason == DecisionReason::kServed);
  CHECK(a.decision.quota_t_ns.has_value());
}

// The times the arrival log says each arrival was decided at (its seventh column), in the order
// of decisions.
std::vector<std::int64_t> logged_times(const LockedProvider& provider) {
  std::istringstream csv(provider.arrivals_csv());
  std::string line;
  std::getline(csv, line);  // the header
  std::vector<std::int64_t> out;
  while (std::getline(csv, line)) {
    line.erase(line.rfind(','));  // the stream column, empty here
    line.erase(line.rfind(','));  // the upstream column, empty here
    out.push_back(std::stoll(line.substr(line.rfind(',') + 1)));
  }
  return out;
}

}  // namespace

TEST_CASE("LockedProvider: the store is asked without the lock; the others go on meanwhile") {
  HeldStore store;
  store.hold();
  LockedProvider provider(options(&store, 2));
  check_others_go_on(provider, store, [&] { store.release(); });
}

TEST_CASE("LockedProvider: arrivals that ask the store are settled in the store's order") {
  TickingStore store;
  constexpr std::size_t kThreads = 8;
  constexpr int kEach = 2000;
  LockedProvider provider(options(&store, kThreads));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) admit(provider, t);
    });
  }
  for (auto& t : threads) t.join();
  const auto times = logged_times(provider);
  REQUIRE(times.size() == kThreads * kEach);
  for (std::size_t i = 0; i < times.size(); ++i) {
    CAPTURE(i);
    REQUIRE(times[i] == static_cast<std::int64_t>(i + 1) * 1000);
  }
}

TEST_CASE("LockedProvider with a Redis store: the others go on while a round trip is out") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  auto o = options(nullptr, 2);
  const auto redis_store = open_quota(redis, "locked", o.config);
  // Held on its way to Redis, not in Redis: hiredis gives up on a paused Redis after a second,
  // and a test must not race that.
  HeldStore store(redis_store.get());
  store.hold();
  o.store = &store;
  LockedProvider provider(o);
  check_others_go_on(provider, store, [&] { store.release(); });
}

TEST_CASE("LockedProvider with a Redis store: two threads' arrivals are logged on its clock") {
  RedisServer redis;
  if (!redis_or_skip(redis)) return;
  auto o = options(nullptr, 2);
  o.config.allowance = Rate{50, kNsPerSec};
  const auto redis_store = open_quota(redis, "ordered", o.config);
  o.store = redis_store.get();
  LockedProvider provider(o);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) admit(provider, t);
    });
  }
  for (auto& t : threads) t.join();
  const auto times = logged_times(provider);
  REQUIRE(times.size() == 600);
  // The store's clock never goes back from one decision to the next.
  for (std::size_t i = 1; i < times.size(); ++i) {
    CAPTURE(i);
    REQUIRE(times[i] >= times[i - 1]);
  }
  CHECK(provider.stats_json()["requests"] == 600);
}
