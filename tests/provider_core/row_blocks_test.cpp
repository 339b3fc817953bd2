#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <string>

#include "recording/row_blocks.hpp"

using stampede::RowBlocks;

namespace {

// A row that counts how many of its kind are alive, to see clear() and the end destroy each.
struct Counted {
  static inline int alive = 0;
  explicit Counted(std::size_t v) : value(v), text("row " + std::to_string(v)) { ++alive; }
  Counted(Counted&& o) noexcept : value(o.value), text(std::move(o.text)) { ++alive; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  Counted& operator=(Counted&&) = delete;
  ~Counted() { --alive; }
  std::size_t value;
  std::string text;  // long enough to live on the heap: its destructor must run
};

// Rows of a kilobyte: a block holds 512 of them, so a few thousand cross blocks.
struct Wide {
  std::array<char, 1024> bytes{};
};

}  // namespace

TEST_CASE("row blocks: rows keep their index and place across blocks") {
  RowBlocks<Wide> rows;
  constexpr std::size_t kRows = RowBlocks<Wide>::kPerBlock * 2 + 3;
  CHECK(RowBlocks<Wide>::kPerBlock == 512);
  std::vector<const Wide*> places;
  for (std::size_t i = 0; i < kRows; ++i) {
    Wide w;
    w.bytes[0] = static_cast<char>(i % 127);
    w.bytes[1023] = static_cast<char>(i % 113);
    rows.push_back(w);
    places.push_back(&rows[i]);
  }
  CHECK(rows.size() == kRows);
  for (std::size_t i = 0; i < kRows; ++i) {
    REQUIRE(rows[i].bytes[0] == static_cast<char>(i % 127));
    REQUIRE(rows[i].bytes[1023] == static_cast<char>(i % 113));
    REQUIRE(&rows[i] == places[i]);  // never moved by the rows after it
  }
  rows[kRows - 1].bytes[5] = 'x';
  const auto& read_only = rows;
  CHECK(read_only[kRows - 1].bytes[5] == 'x');
}

TEST_CASE("row blocks: clear destroys every row and the log fills again") {
  {
    RowBlocks<Counted> rows;
    const std::size_t n = RowBlocks<Counted>::kPerBlock + 10;
    for (std::size_t i = 0; i < n; ++i) rows.push_back(Counted(i));
    CHECK(Counted::alive == static_cast<int>(n));
    rows.clear();
    CHECK(Counted::alive == 0);
    CHECK(rows.size() == 0);
    for (std::size_t i = 0; i < 5; ++i) rows.push_back(Counted(100 + i));
    CHECK(rows.size() == 5);
    CHECK(rows[4].value == 104);
    CHECK(rows[4].text == "row 104");
    CHECK(Counted::alive == 5);
  }
  CHECK(Counted::alive == 0);  // the end destroys what is left
}
