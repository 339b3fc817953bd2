#pragma once

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace stampede {

// Connections the data plane turns away (at --max-connections, out of descriptors) or cuts
// (a request slower than --header-timeout, one whose body's end cannot be found, one too long
// to forward), told on stderr at
// most one line per period: a flood of thousands must not become thousands of lines.
class ConnectionRefusals {
 public:
  ConnectionRefusals(std::ostream& out, std::int64_t period_ns)
      : out_(out), period_ns_(period_ns) {}

  enum class Kind { kAtLimit, kNoDescriptors, kSlowHeaders, kSlowBody, kBadFraming, kBodyTooLong };
  static constexpr int kKinds = 6;
  // Counts one; prints the counts so far when the last line is a period old (or there was none).
  void note(Kind kind, std::int64_t now_ns);
  // Prints what was counted since the last line, if anything and the period has passed (or
  // whatever the time, at the end).
  void flush(std::int64_t now_ns, bool at_end = false);
  static std::string_view describe(Kind kind);

 private:
  void print_locked(std::int64_t now_ns);

  std::ostream& out_;
  const std::int64_t period_ns_;
  std::mutex mu_;
  std::int64_t last_print_ns_ = -1;
  std::int64_t counts_[kKinds] = {};
};

}  // namespace stampede
