#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/due_queue.hpp"

using namespace stampede;

TEST_CASE("a loop's due queue: items by due time, the first pushed first among equals") {
  DueQueue<std::string> q;
  CHECK(q.empty());
  CHECK(q.next_due() == DueQueue<std::string>::kNone);
  q.push(300, "c");
  q.push(100, "a");
  q.push(200, "b1");
  q.push(200, "b2");
  q.push(200, "b3");
  CHECK(q.size() == 5);
  CHECK(q.next_due() == 100);

  struct Row {
    std::int64_t now_ns;
    std::vector<std::string> taken;
    std::int64_t next_due;
  };
  std::vector<std::string> out;
  for (const Row& row : {Row{99, {}, 100}, Row{100, {"a"}, 200}, Row{250, {"b1", "b2", "b3"}, 300},
                         Row{250, {}, 300},
                         Row{DueQueue<std::string>::kNone, {"c"}, DueQueue<std::string>::kNone}}) {
    CAPTURE(row.now_ns);
    out.clear();
    q.take_due(row.now_ns, out);
    CHECK(out == row.taken);
    CHECK(q.next_due() == row.next_due);
  }
  CHECK(q.empty());
}
