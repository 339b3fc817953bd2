#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "live/engine.hpp"
#include "parsed.hpp"

namespace stampede {

// A worker's progress, reported to its supervisor once a wall second on a pipe, one line of
// its counts each time; the supervisor adds the workers' latest up for its one progress line.

// "ELAPSED_NS SENT OK 429 5XX ERRORS BACKOFF DELIVERED DEAD\n"
std::string format_progress_report(const LiveProgress& p);
// A line without its newline; nullopt if it is not one.
std::optional<LiveProgress> parse_progress_report(std::string_view line);
// Counts add; elapsed is the latest.
LiveProgress add_progress(const LiveProgress& a, const LiveProgress& b);

// Writes the reports on the worker's side: none when fd is -1 (not a worker).
class ProgressReporter {
 public:
  ProgressReporter(int fd, std::int64_t start_ns) : fd_(fd), next_ns_(start_ns) {}
  // How long until the next report is due, for a poll's timeout.
  std::int64_t until_due_ns(std::int64_t now_ns) const;
  // Reports when one is due. A supervisor that is gone ends the worker (SIGPIPE).
  void tick(const LiveEngine& engine, std::int64_t now_ns);

 private:
  int fd_;
  std::int64_t next_ns_;
};

// A worker's side of the ready/go exchange (fleet_workers.hpp): what it heard first.
struct HeardStart {
  std::int64_t unix_ns = 0;  // the supervisor's start line
  bool signalled = false;    // or, before it, a signal on signal_fd (left for the caller to take)
};
// A worker's "ready" on fd, once its connections are open.
void say_ready(int fd);
// Waits for the start line on start_fd or a signal on signal_fd. The error when start_fd ends
// without a line (the supervisor is gone) or is not a pipe of its: a worker without a start
// neither guesses one nor waits forever.
Parsed<HeardStart> await_fleet_start(int start_fd, int signal_fd);

// Splits what came on a pipe into lines, keeping a partial last one for the next read.
class LineBuffer {
 public:
  // Appends data; calls on_line for each complete line.
  template <class OnLine>
  void feed(std::string_view data, OnLine on_line) {
    pending_.append(data);
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
      on_line(std::string_view(pending_).substr(start, nl - start));
    pending_.erase(0, start);
  }

 private:
  std::string pending_;
};

}  // namespace stampede
