#include "event_stream.hpp"

#include <algorithm>

namespace stampede {

std::string sse_event(std::uint64_t id, std::string_view data) {
  std::string out = "id: " + std::to_string(id) + "\n";
  for (std::size_t at = 0;;) {
    const auto end = std::min(data.find_first_of("\r\n", at), data.size());
    out.append("data: ").append(data.substr(at, end - at)).append("\n");
    if (end == data.size()) break;
    at = end + (data.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  return out + "\n";
}

std::string sse_retry(std::int64_t ms) {
  return "retry: " + std::to_string(ms) + "\n\n";
}

std::string sse_padding(std::size_t bytes) {
  return ":" + std::string(std::max<std::size_t>(bytes, 3) - 3, ' ') + "\n\n";
}

}  // namespace stampede
