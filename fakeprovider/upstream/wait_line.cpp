#include "upstream/wait_line.hpp"

#include <algorithm>

namespace stampede {

UpstreamExchange* WaitLine::pop() {
  if (line_.empty()) return nullptr;
  UpstreamExchange* x = line_.front().first;
  line_.pop_front();
  return x;
}

void WaitLine::remove(const UpstreamExchange& x) {
  std::erase_if(line_, [&](const auto& e) { return e.first == &x; });
}

std::vector<UpstreamExchange*> WaitLine::expire(std::int64_t now_ns, std::int64_t timeout_ns) {
  // Oldest first: the expired ones are a prefix of the line.
  std::vector<UpstreamExchange*> out;
  while (!line_.empty() && now_ns - line_.front().second > timeout_ns) out.push_back(pop());
  return out;
}

std::vector<UpstreamExchange*> WaitLine::take_all() {
  std::vector<UpstreamExchange*> out;
  while (!line_.empty()) out.push_back(pop());
  return out;
}

}  // namespace stampede
