#pragma once

#include <cstdint>

namespace stampede {

// The watcher (server/arrival_stamper) found bytes waiting on a connection, with a poll that
// began at polled_from_ns; seen_ns is the stamp it holds (0: none), answered_ns the time the
// connection's last request was answered. Whether the bytes are a new arrival, to be stamped:
// not if one since the last answer is stamped already (the earliest edge is the arrival), and
// not if the answer came after the poll began, since the bytes it found may be the answered
// request's, read after the poll; a stamp then would be the next request's, and early. That
// next request is stamped by the server's read instead: late, never early.
constexpr bool edge_is_arrival(std::int64_t seen_ns, std::int64_t answered_ns,
                               std::int64_t polled_from_ns) {
  if (answered_ns >= polled_from_ns) return false;
  return seen_ns == 0 || seen_ns <= answered_ns;
}

}  // namespace stampede
