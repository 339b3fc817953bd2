// The shard arithmetic: which clients and items a shard owns, and the flags that name it.
#include <doctest/doctest.h>

#include <limits>

#include "policy/arrival_schedule.hpp"
#include "policy/shard.hpp"
#include "policy/workload.hpp"

using namespace stampede;

namespace {

FleetConfig fleet(WorkloadKind kind, std::int64_t clients, std::int64_t items) {
  FleetConfig f;
  f.workload = kind;
  f.clients = clients;
  f.items = items;
  if (kind == WorkloadKind::kSteady) f.rate = *parse_rate("10/s");
  return f;
}

// Every item the shard's clients take from a workload split in `count` queues, or the open
// model's arrivals dealt to it.
std::int64_t items_taken(const FleetConfig& f, const Shard& s) {
  if (f.open_model()) {
    const ArrivalSchedule schedule(f);
    ArrivalStream stream(schedule, s.index, s.count);
    std::int64_t n = 0;
    for (; stream.peek(); stream.pop()) ++n;
    return n;
  }
  Workload w(f, s.count);
  std::int64_t n = 0;
  for (std::int64_t k = 0; k < s.clients_below(f.clients); ++k) {
    std::int64_t previous = -1;
    while (auto item = w.next(s.client(k), previous)) {
      ++n;
      previous = item->id;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("a shard owns the clients with id mod N == I, by their global ids") {
  const Shard s{1, 3};
  CHECK(s.sharded());
  CHECK(s.owns(1));
  CHECK(s.owns(4));
  CHECK_FALSE(s.owns(3));
  CHECK(s.client(0) == 1);
  CHECK(s.client(2) == 7);
  CHECK(s.clients_below(10) == 3);  // 1 4 7
  CHECK(s.clients_below(1) == 0);
  CHECK(Shard{}.owns(12345));
  CHECK_FALSE(Shard{}.sharded());
}

TEST_CASE("the shards' items add up to the fleet's, and are the ones their clients take") {
  for (const auto kind : {WorkloadKind::kStorm, WorkloadKind::kSteady, WorkloadKind::kQueue}) {
    for (const auto& [clients, items] :
         {std::pair<std::int64_t, std::int64_t>{10, 10}, {10, 37}, {7, 3}, {1000, 2500}}) {
      const auto f = fleet(kind, clients, items);
      for (const std::int64_t count : {1, 3, 4}) {
        std::int64_t total = 0;
        for (std::int64_t i = 0; i < count; ++i) {
          const Shard s{i, count};
          INFO("workload " << static_cast<int>(kind) << ", " << clients << " clients, " << items
                           << " items, shard " << i << "/" << count);
          CHECK(items_of(f, s) == items_taken(f, s));
          total += items_of(f, s);
        }
        CHECK(total == f.item_count());
      }
    }
  }
}

TEST_CASE("a split queue: queue I holds the items with id mod N == I") {
  auto f = fleet(WorkloadKind::kQueue, 4, 9);
  Workload w(f, 3);
  CHECK(w.next(0, -1)->id == 0);
  CHECK(w.next(3, -1)->id == 3);  // client 3 drains queue 0 too
  CHECK(w.next(1, -1)->id == 1);
  CHECK(w.next(2, -1)->id == 2);
  CHECK(w.next(0, 0)->id == 6);
  CHECK_FALSE(w.next(3, 3).has_value());
}

TEST_CASE("first senders: the shard's clients that get a first item") {
  CHECK(first_senders_of(fleet(WorkloadKind::kStorm, 10, 4), Shard{1, 3}) == 1);  // 1; 4 >= 4
  CHECK(first_senders_of(fleet(WorkloadKind::kStorm, 10, 100), Shard{1, 3}) == 3);
  CHECK(first_senders_of(fleet(WorkloadKind::kQueue, 10, 2), Shard{2, 3}) == 0);
  CHECK(first_senders_of(fleet(WorkloadKind::kQueue, 10, 5), Shard{1, 3}) == 2);
}

TEST_CASE("--shard I/N, or JOB_COMPLETION_INDEX with STAMPEDE_SHARDS") {
  CHECK(parse_shard("2/5")->index == 2);
  CHECK(parse_shard("2/5")->count == 5);
  for (const char* bad : {"5/5", "-1/3", "1/0", "1", "a/3", "1/3x", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_shard(bad));
  }
  CHECK(resolve_shard("", nullptr, nullptr)->count == 1);
  CHECK(resolve_shard("1/4", "3", "8")->index == 1);  // the flag wins
  const auto from_env = resolve_shard("", "3", "8");
  CHECK(from_env->index == 3);
  CHECK(from_env->count == 8);
  CHECK(resolve_shard("", "3", nullptr).error().find("STAMPEDE_SHARDS is not") !=
        std::string::npos);
  CHECK(resolve_shard("", nullptr, "4").error().find("JOB_COMPLETION_INDEX is not") !=
        std::string::npos);
  CHECK(resolve_shard("", "4", "4").error().find("outside") != std::string::npos);
}

TEST_CASE("--start-at: epoch seconds or RFC 3339") {
  CHECK(*parse_start_at("1767225600") == 1767225600LL * 1'000'000'000);
  CHECK(*parse_start_at("1767225600.25") == 1767225600LL * 1'000'000'000 + 250'000'000);
  CHECK(*parse_start_at("2026-01-01T00:00:00Z") == 1767225600LL * 1'000'000'000);
  CHECK(*parse_start_at("2026-01-01T01:00:00.5+01:00") ==
        1767225600LL * 1'000'000'000 + 500'000'000);
  CHECK(*parse_start_at("2025-12-31T19:00:00-05:00") == 1767225600LL * 1'000'000'000);
  // Past 2262 in int64 ns: the end of time, not a moment before 1970.
  CHECK(*parse_start_at("9999-12-31T23:59:59Z") == std::numeric_limits<std::int64_t>::max());
  for (const char* bad :
       {"", "soon", "-5", "2026-01-01", "2026-01-01T00:00:00", "1e999", "2026-13-01T00:00:00Z"}) {
    INFO(bad);
    CHECK_FALSE(parse_start_at(bad));
  }
}
