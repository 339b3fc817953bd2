#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/workload.hpp"

using namespace stampede;

namespace {

// One client's items as "id@ms" in the order it takes them.
std::string take_all(Workload& w, std::int64_t client) {
  std::string out;
  std::int64_t previous = -1;
  while (auto item = w.next(client, previous)) {
    out += std::to_string(item->id) + "@" + std::to_string(item->intended_ns / kNsPerMs) + " ";
    previous = item->id;
  }
  return out;
}

}  // namespace

TEST_CASE("storm: item k belongs to client k mod N, all at t=0") {
  FleetConfig f;
  f.workload = WorkloadKind::kStorm;
  f.clients = 4;
  Workload one_each(f);
  CHECK(one_each.total() == 4);
  CHECK(take_all(one_each, 0) == "0@0 ");
  CHECK(take_all(one_each, 3) == "3@0 ");
  f.items = 10;
  Workload more(f);
  CHECK(more.total() == 10);
  CHECK(take_all(more, 0) == "0@0 4@0 8@0 ");
  CHECK(take_all(more, 1) == "1@0 5@0 9@0 ");
  CHECK(take_all(more, 3) == "3@0 7@0 ");
  f.items = 2;
  Workload fewer(f);  // more clients than items: the rest have none
  CHECK(take_all(fewer, 1) == "1@0 ");
  CHECK(take_all(fewer, 2) == "");
}

TEST_CASE("steady is the open model: its items arrive on their own, never asked for") {
  FleetConfig f;
  f.workload = WorkloadKind::kSteady;
  f.clients = 3;
  f.rate = Rate{10, kNsPerSec};
  f.items = 7;
  Workload w(f);
  CHECK(w.total() == 7);
  CHECK(take_all(w, 0).empty());  // ArrivalSchedule and ClientPool hand them out
}

TEST_CASE("queue: one shared queue at t=0, taken by whichever worker asks") {
  FleetConfig f;
  f.workload = WorkloadKind::kQueue;
  f.clients = 3;
  f.items = 5;
  Workload w(f);
  std::string order;
  for (const auto& [client, previous] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {2, -1}, {0, -1}, {2, 0}, {1, -1}, {2, 3}, {0, 1}}) {
    const auto item = w.next(client, previous);
    order += item ? std::to_string(item->id) + "@" + std::to_string(item->intended_ns) + " " : "- ";
  }
  CHECK(order == "0@0 1@0 2@0 3@0 4@0 - ");
}
