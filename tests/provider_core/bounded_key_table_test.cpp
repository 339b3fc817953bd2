#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "model/bounded_key_table.hpp"

using namespace stampede;

namespace {

struct Slot {
  std::uint64_t key;
  int sends;
};

std::vector<std::uint64_t> walked(const BoundedKeyTable<Slot>& table) {
  std::vector<std::uint64_t> keys;
  table.for_each([&keys](const Slot& s) { keys.push_back(s.key); });
  return keys;
}

}  // namespace

TEST_CASE("a bounded key table walks the keys it holds, in the order they came, and no more") {
  struct Case {
    std::size_t max_keys;
    std::vector<std::uint64_t> inserted;  // repeats included
    std::vector<std::uint64_t> held;
    std::size_t refused;
  };
  // Keys that share a probe start (the table of max 4 has 8 slots: 3, 11 and 19 collide).
  const std::vector<Case> cases{
      {4, {}, {}, 0},
      {4, {7}, {7}, 0},
      {4, {11, 3, 19, 3, 11}, {11, 3, 19}, 0},
      {2, {5, 6, 7, 5, 8}, {5, 6}, 2},
      {1'000'000, {42, 1ULL << 63, 42}, {42, 1ULL << 63}, 0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.max_keys);
    BoundedKeyTable<Slot> table(c.max_keys);
    std::size_t refused = 0;
    for (const auto key : c.inserted) {
      bool inserted = false;
      Slot* s = table.find_or_insert(key, inserted);
      if (s == nullptr) {
        ++refused;
        continue;
      }
      CHECK(s->key == key);
      ++s->sends;
    }
    CHECK(walked(table) == c.held);
    CHECK(table.size() == c.held.size());
    CHECK(refused == c.refused);
    int sends = 0;
    table.for_each([&sends](const Slot& s) { sends += s.sends; });
    CHECK(static_cast<std::size_t>(sends) == c.inserted.size() - c.refused);
    table.clear();
    CHECK(walked(table).empty());
    CHECK(table.size() == 0);
  }
}

TEST_CASE("a cleared table takes keys anew, each zeroed") {
  BoundedKeyTable<Slot> table(2);
  bool inserted = false;
  table.find_or_insert(9, inserted)->sends = 5;
  table.clear();
  Slot* again = table.find_or_insert(9, inserted);
  REQUIRE(again != nullptr);
  CHECK(inserted);
  CHECK(again->sends == 0);
  CHECK(walked(table) == std::vector<std::uint64_t>{9});
}
