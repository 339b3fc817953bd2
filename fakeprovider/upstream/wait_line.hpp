#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace stampede {

struct UpstreamExchange;

// The exchanges waiting for a pooled connection, all of them busy, in the order they came,
// each with the time it began to wait: a wait longer than the upstream timeout ends it (the
// connections may be held by clients that do not read, for as long as they stay connected).
class WaitLine {
 public:
  void push_back(UpstreamExchange& x, std::int64_t now_ns) { line_.emplace_back(&x, now_ns); }
  bool empty() const { return line_.empty(); }
  // The longest waiting; null when none waits.
  UpstreamExchange* pop();
  void remove(const UpstreamExchange& x);
  // Those that have waited longer than timeout_ns by now_ns, oldest first, out of the line.
  std::vector<UpstreamExchange*> expire(std::int64_t now_ns, std::int64_t timeout_ns);
  // Everyone, oldest first; the line is left empty.
  std::vector<UpstreamExchange*> take_all();

 private:
  std::deque<std::pair<UpstreamExchange*, std::int64_t>> line_;
};

}  // namespace stampede
