#include <doctest/doctest.h>

#include "upstream/upstream_exchange.hpp"
#include "upstream/wait_line.hpp"

using namespace stampede;

TEST_CASE("the pool's wait line: first come first served, a wait past the timeout ends") {
  UpstreamExchange a, b, c, d;
  WaitLine line;
  CHECK(line.empty());
  CHECK(line.pop() == nullptr);
  line.push_back(a, 100);
  line.push_back(b, 200);
  line.push_back(c, 300);
  line.push_back(d, 400);
  line.remove(c);  // its client left
  // At 1,250 with a timeout of 1,000: a (waited 1,150) and b (1,050) are over it, d (850) not;
  // a wait of exactly the timeout is not over it.
  CHECK(line.expire(1'250, 1'000) == std::vector<UpstreamExchange*>{&a, &b});
  CHECK(line.expire(1'400, 1'000).empty());
  CHECK(line.pop() == &d);
  CHECK(line.empty());
  line.push_back(a, 0);
  line.push_back(b, 0);
  CHECK(line.take_all() == std::vector<UpstreamExchange*>{&a, &b});
  CHECK(line.empty());
}
