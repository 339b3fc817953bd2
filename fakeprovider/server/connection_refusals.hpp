#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace stampede {

// The connections turned away (at --max-connections, out of descriptors) by every process of
// the data plane, counted in memory shared with the workers this process forks
// (--processes): the provider's stats say how many of a fleet's connections it refused, so
// loadgen can tell a harness that could not connect from a provider that failed.
class RefusalTally {
 public:
  RefusalTally();
  ~RefusalTally();
  RefusalTally(const RefusalTally&) = delete;
  RefusalTally& operator=(const RefusalTally&) = delete;
  std::atomic<std::int64_t>& count() { return *count_; }

 private:
  std::atomic<std::int64_t>* count_;
};

// Connections the data plane turns away (at --max-connections, out of descriptors) or cuts
// (a request slower than --header-timeout, one whose body's end cannot be found, one too long
// to forward), told on stderr at
// most one line per period: a flood of thousands must not become thousands of lines. Those
// turned away are also added to the tally, if given.
class ConnectionRefusals {
 public:
  ConnectionRefusals(std::ostream& out, std::int64_t period_ns,
                     std::atomic<std::int64_t>* turned_away = nullptr)
      : out_(out), period_ns_(period_ns), turned_away_(turned_away) {}

  enum class Kind { kAtLimit, kNoDescriptors, kSlowHeaders, kSlowBody, kBadFraming, kBodyTooLong };
  static constexpr int kKinds = 6;
  // Counts one; prints the counts so far when the last line is a period old (or there was none).
  void note(Kind kind, std::int64_t now_ns);
  // Prints what was counted since the last line, if anything and the period has passed (or
  // whatever the time, at the end).
  void flush(std::int64_t now_ns, bool at_end = false);
  static std::string_view describe(Kind kind);
  // What to do about connections turned away, said after their counts; empty for the cuts.
  static std::string_view remedy(Kind kind);

 private:
  void print_locked(std::int64_t now_ns);

  std::ostream& out_;
  const std::int64_t period_ns_;
  std::atomic<std::int64_t>* const turned_away_;
  std::mutex mu_;
  std::int64_t last_print_ns_ = -1;
  std::int64_t counts_[kKinds] = {};
};

}  // namespace stampede
