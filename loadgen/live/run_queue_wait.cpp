#include "live/run_queue_wait.hpp"

#include <array>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace stampede {

std::optional<std::int64_t> schedstat_wait_ns(std::string_view text) {
  std::array<std::int64_t, 3> fields{};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) {
      if (p == end || *p != ' ') return std::nullopt;
      ++p;
    }
    const auto [next, ec] = std::from_chars(p, end, fields[i]);
    if (ec != std::errc() || next == p || fields[i] < 0) return std::nullopt;
    p = next;
  }
  if (p != end && !(*p == '\n' && p + 1 == end)) return std::nullopt;
  return fields[1];
}

std::optional<std::int64_t> thread_run_queue_wait_ns() {
  std::ifstream in("/proc/thread-self/schedstat");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return in.bad() ? std::nullopt : schedstat_wait_ns(text);
}

}  // namespace stampede
